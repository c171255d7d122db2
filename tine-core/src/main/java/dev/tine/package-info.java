/**
 * Tine, a work-stealing fork/join runtime: {@link dev.tine.WorkStealingPool} runs {@link
 * dev.tine.Task}s and scope-passing functions ({@link dev.tine.Scope}); forks are latent (run by a
 * direct call when joined, unless a thief asked for them meanwhile); {@link dev.tine.PoolStats}
 * says per worker why a pool is slow. The only exported package of the {@code dev.tine} module.
 */
package dev.tine;
