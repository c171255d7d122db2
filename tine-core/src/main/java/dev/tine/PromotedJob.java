package dev.tine;

/**
 * The task form of a join's second half, made only when it leaves its owner's latent stack
 * (promoted to the deque, claimed by an idle worker) or, in an eager pool, at the fork. It runs the
 * (function, argument) pair by its kind ({@link JoinKinds#run}); a {@code long} result lands in
 * {@link #longResult}, a {@code double} in {@link #doubleResult}, an object is the task's result. A
 * job runs only on a worker of its pool (it is never handed out).
 */
final class PromotedJob extends Task<Object> {
  /**
   * What a latent entry becomes when it leaves the stack, for promotion and claims alike: a task
   * stays itself, a join's second half becomes a job (which the stack leaves in the entry's slot
   * for its joiner). It allocates, so the stack calls it before its commit.
   */
  static final LatentClaims.Promoter PROMOTER =
      (item, arg, kind) -> kind == LatentStack.KIND_TASK ? item : new PromotedJob(item, arg, kind);

  final Object fn;
  final long arg;
  final int kind;
  long longResult;
  double doubleResult;

  PromotedJob(Object fn, long arg, int kind) {
    this.fn = fn instanceof JoinKinds.Ambiguous a ? a.fn : fn;
    this.arg = arg;
    this.kind = kind;
  }

  @Override
  protected Object compute() {
    return JoinKinds.run(this);
  }

  double joinDouble() {
    join();
    return doubleResult;
  }

  long joinLong() {
    join();
    return longResult;
  }
}
