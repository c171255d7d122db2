package dev.tine.spark;

import java.io.Serializable;

/**
 * What one run of a piece measured on its executor, sent back to the driver through a Spark
 * accumulator. The pool figures are the executor pool's counters since the previous report from the
 * same JVM: pieces that run at the same time share the pool, so a piece's steals are the pool's
 * steals while it (and its neighbours) ran, and the sum over a job's reports is the pool's total.
 *
 * @param piece the piece's number (its shipping order)
 * @param attempt Spark's attempt number of the task (above 0: a retry)
 * @param executor Spark's executor id ({@code driver} in local mode)
 * @param pid the executor JVM's process id
 * @param startMillis wall-clock start (epoch milliseconds)
 * @param nanos the piece's run time
 * @param tasks pool tasks executed
 * @param steals pool steals
 * @param promotions latent forks promoted to stealable tasks
 * @param busyNanos the pool workers' CPU time
 */
public record PieceReport(
    int piece,
    int attempt,
    String executor,
    long pid,
    long startMillis,
    long nanos,
    long tasks,
    long steals,
    long promotions,
    long busyNanos)
    implements Serializable {}
