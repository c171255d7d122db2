/**
 * The agent at work: its runtime (start, ticker, stop), which wires the instrumentation ({@code
 * dev.tine.agent.instrument}) to the measured state ({@code dev.tine.agent.state}), and the exports
 * of the figures: MXBeans, the Prometheus endpoint and a Flight Recorder event.
 */
package dev.tine.agent.core;
