/**
 * Resizing a measured pool at run time: the result both sides of the JMX call share ({@link
 * dev.tine.agent.resize.ResizeResult}), with the exit codes {@code tine top --resize/--restore}
 * (and {@code tine tune}) return.
 */
package dev.tine.agent.resize;
