/**
 * The work-stealing deque: one owner pushes and pops at the top, thieves take from the base.
 * Internal to the runtime (not exported).
 */
package dev.tine.deque;
