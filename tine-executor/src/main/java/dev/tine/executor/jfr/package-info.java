/**
 * Flight Recorder events of the measured executor: per-meter statistics, queue waits and
 * rejections, as {@code dev.tine.jfr} holds the work-stealing pool's. Loaded only once a recording
 * asks for them. Internal (not exported); their names and fields are documented in the
 * observability design note.
 */
package dev.tine.executor.jfr;
