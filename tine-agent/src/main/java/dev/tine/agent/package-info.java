/**
 * The Tine agent: measures the thread pools of a running JVM without changing its code, loaded with
 * {@code -javaagent} or attached at run time; {@link dev.tine.agent.Main} is the jar's command line
 * ({@code top}, {@code attach-experiment}).
 */
package dev.tine.agent;
