/**
 * The benchmark programs, one file each, and {@link dev.tine.bench.programs.Programs}, the
 * registry.
 */
package dev.tine.bench.programs;
