/**
 * How Tine's modules register with the JVM's platform services: an MXBean under a free name with
 * the platform MBean server ({@link dev.tine.platform.MXBeanRegistration}), and a module's Flight
 * Recorder events once JFR initializes ({@link dev.tine.platform.FlightRecorderRegistration}).
 * Written once for the work-stealing pool and the measured executor. Internal: exported only to
 * {@code dev.tine.executor}, never part of the API.
 */
package dev.tine.platform;
