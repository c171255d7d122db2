/**
 * The attach experiment: Pepperdine's runs against an unmodified server, measured by attaching the
 * agent.
 */
package dev.tine.agent.experiment;
