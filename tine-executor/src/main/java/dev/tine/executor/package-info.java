/**
 * A thread pool that measures itself, and the measuring on its own: {@link
 * dev.tine.executor.MeasuredExecutor} (Little's-law figures, percentiles, self-sizing), {@link
 * dev.tine.executor.PoolMeter} (lock-free per-task measurement for any pool), {@link
 * dev.tine.executor.ExecutorSnapshot} (what one period measured) and {@link
 * dev.tine.executor.PoolSizeAdvisor} (a pool size from the figures, with the reasoning).
 */
package dev.tine.executor;
