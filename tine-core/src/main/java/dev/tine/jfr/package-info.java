/**
 * Flight Recorder events of the runtime: per-pool statistics and blocked joins. Loaded only once a
 * recording asks for them. Internal (not exported); their names and fields are documented in the
 * observability design note.
 */
package dev.tine.jfr;
