/**
 * Micrometer meters for Tine: {@link dev.tine.micrometer.WorkStealingPoolMetrics} for a {@code
 * WorkStealingPool}, {@link dev.tine.micrometer.ExecutorSnapshotMetrics} for a {@code
 * MeasuredExecutor} or any other source of executor snapshots. Names follow Micrometer's executor
 * meters.
 */
package dev.tine.micrometer;
