package dev.tine.agent.state;

/**
 * A server pool's requests, beside its tasks. A server's pool task is not its request: Tomcat runs
 * one socket event per task, which serves several keep-alive requests or none; Netty moves each
 * handler event to its group as a task of its own. The agent counts and times each request at the
 * server's own per-request entry point (Tomcat's {@code CoyoteAdapter.service}, ...) into a tally
 * of the same type as the pool's ({@link PoolTally}) and slides its own window over it.
 *
 * <p>Once a pool has served a request, its figures are the requests' (λ requests per second, S a
 * request's handling time, Wq from its bytes being handed to the pool to its handling starting, L,
 * and the advice for them), and the pool's task figures move to {@link PoolFigures#tasks}.
 *
 * <p>Wq of a request: the first request a task serves waited from the task's arrival (the poller
 * handing the socket to the pool) to its handling starting (the task's queueing and the parsing of
 * the request's head); a later request in the same task was read by the same thread right after the
 * previous one ended, so it waited from that end.
 */
public final class RequestView {
  /** Requests: arrivals are handling starts, completions their ends. */
  public final PoolTally tally = new PoolTally();

  private final TallyWindow window;

  RequestView(Host host, long startNanos) {
    window = new TallyWindow(host.config(), startNanos);
  }

  /**
   * Moves {@code f}'s task figures to {@code f.tasks} and puts the requests' in their place (ticker
   * only, after the task window's tick). The pool's refusals stay: a refused task is a connection
   * the pool did not take.
   */
  void tick(long now, PoolFigures f) {
    PoolFigures tasks = f.copy();
    window.tick(tally, now, f);
    f.rejected = tasks.rejected;
    f.windowRejected = tasks.windowRejected;
    f.unit = PoolFigures.REQUESTS;
    f.tasks = tasks;
    f.tasksPerRequest =
        f.windowCompleted > 0 ? (double) tasks.windowCompleted / f.windowCompleted : Double.NaN;
  }
}
