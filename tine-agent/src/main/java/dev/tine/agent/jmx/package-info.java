/** The MXBeans the agent registers in the target: one per measured pool and one for the agent. */
package dev.tine.agent.jmx;
