/**
 * The benchmarks: a {@link dev.tine.bench.Program} has sequential, Tine and JDK versions of one
 * workload ({@link dev.tine.bench.Workload}) at each {@link dev.tine.bench.Size}.
 */
package dev.tine.bench;
