/**
 * Micrometer meters for Tine's pools: {@link dev.tine.micrometer.WorkStealingPoolMetrics} and
 * {@link dev.tine.micrometer.ExecutorSnapshotMetrics} (a {@code MeasuredExecutor}, or any source of
 * {@code ExecutorSnapshot}s).
 */
@SuppressWarnings("requires-transitive-automatic") // micrometer.core is an automatic module
module dev.tine.micrometer {
  requires transitive dev.tine;
  requires transitive dev.tine.executor;
  requires transitive micrometer.core; // binders are MeterBinders, tags are Micrometer Tags

  exports dev.tine.micrometer;
}
