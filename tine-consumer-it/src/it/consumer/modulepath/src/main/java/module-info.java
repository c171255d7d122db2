/**
 * A user's module: tine-micrometer's descriptor brings dev.tine, dev.tine.executor and
 * micrometer.core.
 */
module dev.tine.consumer {
  requires dev.tine.micrometer;
}
