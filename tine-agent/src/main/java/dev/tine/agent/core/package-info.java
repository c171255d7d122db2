/**
 * The agent at work: which pools it measures, the advice woven into them, each pool's state and
 * figures, and their export over JMX.
 */
package dev.tine.agent.core;
