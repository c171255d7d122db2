/**
 * The two small classes the agent puts on the boot class path, so that instrumented JDK classes
 * (ThreadPoolExecutor, ForkJoinPool) can call into the agent.
 */
package dev.tine.agent.bootstrap;
