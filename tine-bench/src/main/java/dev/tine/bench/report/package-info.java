/**
 * What a run says: console tables, JSON records, the HTML report, run-to-run comparison, and
 * whether the machine was quiet enough to trust the scaling figures.
 */
package dev.tine.bench.report;
