package dev.tine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;

/**
 * {@link WorkStealingPool#managedBlock} on a worker: the pool makes up for the blocked worker, as
 * the JDK's {@code ForkJoinPool.managedBlock} does. The worker's latent forks are promoted first
 * (so that other workers can run them), then, while it blocks, the pool counts it in {@code
 * blockedWorkers} and may run one more worker than its parallelism for it, up to {@code maxSpares}
 * ({@link WorkerSlots#targetSize}); the stall watch's live spares count against the same bound.
 * Past the bound, with no worker idle, it throws {@link RejectedExecutionException} rather than
 * block with nobody left to run the work the blocker may wait for.
 */
final class Compensation {
  private static final VarHandle BLOCKED;

  static {
    try {
      BLOCKED =
          MethodHandles.lookup().findVarHandle(WorkStealingPool.class, "blockedWorkers", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Compensation() {}

  static void block(Worker w, WorkStealingPool.ManagedBlocker blocker) throws InterruptedException {
    WorkStealingPool pool = w.pool;
    LatentJoins.promoteAll(w);
    if (w.pendingCount != 0) {
      w.completePending();
    }
    if (blocker.isReleasable()) {
      return;
    }
    // Under the pool's lock, as WorkerSlots.tryStartStallSpare: each reads the other's count and
    // adds its own there, so a blocker and a stall spare cannot both pass the bound.
    synchronized (pool.lock) {
      int b = (int) BLOCKED.getAndAdd(pool, 1) + 1;
      // One bound for every spare: the stall watch's live spares take room too.
      if (b + pool.stallSparesLive > pool.maxSpares && Sleep.sleepers(pool.sleep.ctl()) == 0) {
        BLOCKED.getAndAdd(pool, -1);
        throw new RejectedExecutionException(
            "Thread limit exceeded replacing blocked worker: pool "
                + pool.name()
                + " already runs "
                + pool.maxSpares
                + " spare workers (maxSpares; "
                + pool.stallSparesLive
                + " of them started by the stall watch), and none is idle");
      }
    }
    w.managedBlocking = true;
    try {
      pool.sleep.signalWork(); // wake a sleeper for what we published, or start a spare for us
      do {
        // until released
      } while (!blocker.isReleasable() && !blocker.block());
    } finally {
      w.managedBlocking = false;
      BLOCKED.getAndAdd(pool, -1);
    }
  }
}
