/**
 * Per-worker counters, written by their worker without atomics and summed into {@link
 * dev.tine.PoolStats} on demand. Internal (not exported).
 */
package dev.tine.stats;
