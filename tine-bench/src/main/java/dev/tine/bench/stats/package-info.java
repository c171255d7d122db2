/**
 * The statistics of the bench: paired ratios with bootstrap intervals, and the rank test behind
 * run-to-run comparison.
 */
package dev.tine.bench.stats;
