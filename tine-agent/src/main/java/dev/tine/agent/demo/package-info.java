/** A loopback server with thread pools to measure, for the experiments and the README's example. */
package dev.tine.agent.demo;
