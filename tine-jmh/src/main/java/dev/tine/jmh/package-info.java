/** JMH microbenchmarks of the hot paths: joins, scopes, the deque and the measured executor. */
package dev.tine.jmh;
