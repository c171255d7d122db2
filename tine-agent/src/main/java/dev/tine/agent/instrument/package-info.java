/**
 * How the agent sees the pools work: the ByteBuddy advice woven into the JDK's pools ({@link
 * dev.tine.agent.instrument.Advices}) and into the servers' ({@code *Family}), the transformer that
 * weaves it, and the hooks the advice reaches through the bootstrap bridge ({@link
 * dev.tine.agent.instrument.AgentHooks}), which record into the measured state ({@code
 * dev.tine.agent.state}).
 */
package dev.tine.agent.instrument;
