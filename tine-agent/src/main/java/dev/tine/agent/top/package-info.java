/**
 * {@code tine top}: attaches the agent to a JVM of the same user and shows its pools, refreshed
 * like top.
 */
package dev.tine.agent.top;
