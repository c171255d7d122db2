/**
 * Running the bench: cells in interleaved rounds, the measured ceiling, the machine and the
 * conditions of the run.
 */
package dev.tine.bench.run;
