/**
 * {@code tine tune}: the closed loop from a pool's own windowed figures to its size, with guard
 * rails ({@link dev.tine.agent.tune.Tuner}), over the agent's MXBeans.
 */
package dev.tine.agent.tune;
