/**
 * jcstress tests of the work-stealing deque's races (push, pop and steal of the last element,
 * growth while stealing).
 */
package dev.tine.jcstress;
