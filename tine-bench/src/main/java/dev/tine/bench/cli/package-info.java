/**
 * The {@code tine} command line (picocli): bench, compare, report, advise, experiment, top. Bad
 * input, output paths included, is refused before any work, in one line with exit code 2.
 */
package dev.tine.bench.cli;
