/**
 * What the agent has measured: each pool's state ({@link dev.tine.agent.state.PoolState}), the
 * registry that finds it by the pool's identity, the arrival times of queued tasks ({@link
 * dev.tine.agent.state.ArrivalTable}), the pool's threads ({@link dev.tine.agent.state.ThreadSet}),
 * the task tally and its window, and the figures and size advice of each tick. Written by the
 * instrumentation ({@code dev.tine.agent.instrument}) on the application's threads and read by the
 * ticker; knows nothing of how the pools are instrumented.
 */
package dev.tine.agent.state;
