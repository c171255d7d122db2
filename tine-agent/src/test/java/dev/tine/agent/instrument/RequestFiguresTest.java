package dev.tine.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.agent.AgentConfig;
import dev.tine.agent.state.Host;
import dev.tine.agent.state.PoolFigures;
import dev.tine.agent.state.PoolState;
import dev.tine.agent.state.Registry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A server pool's requests against the hooks' own calls, on one thread: one Tomcat task serving two
 * keep-alive requests. Bounds come from this test's own clock readings around each call, so the
 * test holds on a loaded machine.
 */
class RequestFiguresTest {
  private final Host host =
      new Host() {
        private final AtomicInteger recorders = new AtomicInteger();

        @Override
        public AgentConfig config() {
          return AgentConfig.DEFAULT;
        }

        @Override
        public void failed(Throwable t) {} // the fake pool has no getters to read

        @Override
        public void wakeTicker() {}

        @Override
        public AtomicInteger recorders() {
          return recorders;
        }

        @Override
        public int processors() {
          return 2;
        }
      };
  private final Registry reg = new Registry(host);
  private final AgentHooks hooks = new AgentHooks(host, reg);
  private final Object pool = new Object(), task = new Object();
  private static final int TOMCAT = TomcatFamily.ID;

  private static void pause(long millis) {
    long until = System.nanoTime() + millis * 1_000_000;
    for (long left; (left = until - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
  }

  @Test
  void aTaskServingTwoRequestsShowsTwoRequestsEachWaitingFromItsOwnReadiness() {
    long a0 = System.nanoTime();
    hooks.famArrive(TOMCAT, pool, task, null); // the poller hands the connection to the pool
    long a1 = System.nanoTime();
    pause(4); // queued
    hooks.famStart(TOMCAT, pool, task);
    pause(1); // the request's head is read
    long s0 = System.nanoTime();
    hooks.reqBegin(TOMCAT, null);
    long s1 = System.nanoTime();
    pause(3);
    long e0 = System.nanoTime();
    hooks.reqEnd(TOMCAT, null, null);
    long e1 = System.nanoTime();
    pause(1); // the next keep-alive request, read by the same task
    long t0 = System.nanoTime();
    hooks.reqBegin(TOMCAT, null);
    hooks.reqBegin(TOMCAT, null); // the server's entry point entered again inside: the same request
    long t1 = System.nanoTime();
    pause(2);
    hooks.reqEnd(TOMCAT, null, null);
    long f0 = System.nanoTime();
    hooks.reqEnd(TOMCAT, null, null);
    long f1 = System.nanoTime();
    hooks.famEnd(TOMCAT, pool, null, null);
    hooks.reqBegin(TOMCAT, null); // outside any task of a measured pool: not a request of it
    hooks.reqEnd(TOMCAT, null, null);

    PoolState st = reg.get(pool);
    st.refresh(System.nanoTime());
    PoolFigures f = st.figures;
    assertEquals(PoolFigures.REQUESTS, f.unit);
    assertEquals(2, f.windowArrivals, "requests");
    assertEquals(2, f.windowCompleted);
    assertEquals(2, f.totalTimed);
    assertEquals(1, f.tasks.windowCompleted, "pool tasks");
    assertEquals(0.5, f.tasksPerRequest, 1e-12);
    // request 1 waited from the task's arrival; request 2 from request 1's end
    long waitLow = (s0 - a1) + (t0 - e1), waitHigh = (s1 - a0) + (t1 - e0);
    long serviceLow = (e0 - s1) + (f0 - t1), serviceHigh = (e1 - s0) + (f1 - t0);
    long wait = Math.round(f.totalWaitSeconds * 1e9),
        service = Math.round(f.totalServiceSeconds * 1e9);
    assertTrue(
        wait >= waitLow - 1000 && wait <= waitHigh + 1000,
        "waits " + wait + " ns not in [" + waitLow + ", " + waitHigh + "]");
    assertTrue(
        service >= serviceLow - 1000 && service <= serviceHigh + 1000,
        "handling " + service + " ns not in [" + serviceLow + ", " + serviceHigh + "]");
    // the task's own figures are kept beside: one task, waiting from its arrival to its start
    assertTrue(f.tasks.waitMs >= 4, "task wait " + f.tasks.waitMs);
    assertNull(f.tasks.tasks);
  }

  /** Stands for Tomcat's {@code org.apache.coyote.Request}: its own start of the request. */
  public static final class CoyoteRequest {
    long startTimeNanos = -1;

    /** Its note 1: Catalina's request (null: none). */
    CatalinaRequest catalina;

    public long getStartTimeNanos() {
      return startTimeNanos;
    }

    public Object getNote(int pos) {
      return pos == 1 ? catalina : null;
    }
  }

  /** Stands for Catalina's request: async from {@code startAsync()} until its completion. */
  public static final class CatalinaRequest {
    boolean async;

    public boolean isAsync() {
      return async;
    }
  }

  /**
   * A Servlet async request: its first dispatch in one task, {@code startAsync()} there, its work
   * elsewhere, then {@code complete()} queues a second task whose {@code asyncDispatch} (twice, as
   * Tomcat calls it: still completing, then done) ends it. It is one request, recorded at its end;
   * its wait is its first task's and the completion task's, its handling the two dispatches (from
   * Tomcat's start of the request, and from the completion task's start), not the work between.
   */
  @Test
  void anAsyncRequestIsOneRequestHoldingThreadsForItsDispatchesOnly() {
    CoyoteRequest request = new CoyoteRequest();
    request.catalina = new CatalinaRequest();
    Object completion = new Object();
    long a0 = System.nanoTime();
    hooks.famArrive(TOMCAT, pool, task, null);
    long a1 = System.nanoTime();
    pause(2); // queued
    hooks.famStart(TOMCAT, pool, task);
    request.startTimeNanos = System.nanoTime(); // Tomcat reads the request's first byte
    hooks.reqBegin(TOMCAT, request);
    pause(2);
    request.catalina.async = true; // startAsync(): the work goes to another pool
    long e0 = System.nanoTime();
    hooks.reqEnd(TOMCAT, request, null);
    long e1 = System.nanoTime();
    hooks.famEnd(TOMCAT, pool, null, null);
    pause(5); // the work, on no thread of this pool
    long c0 = System.nanoTime();
    hooks.famArrive(TOMCAT, pool, completion, null); // complete() queues the completion
    long c1 = System.nanoTime();
    pause(3); // queued
    long d0 = System.nanoTime();
    hooks.famStart(TOMCAT, pool, completion);
    long d1 = System.nanoTime();
    pause(1);
    hooks.reqResume(TOMCAT, request, true, null); // asyncDispatch while completing
    pause(1);
    hooks.reqResume(TOMCAT, request, false, null); // still async: it leaves the dispatch
    request.catalina.async = false;
    hooks.reqResume(TOMCAT, request, true, null); // asyncDispatch again: the response finished
    pause(1);
    long g0 = System.nanoTime();
    hooks.reqResume(TOMCAT, request, false, null); // the access log has logged it
    long g1 = System.nanoTime();
    hooks.famEnd(TOMCAT, pool, null, null);

    PoolState st = reg.get(pool);
    st.refresh(System.nanoTime());
    PoolFigures f = st.figures;
    assertEquals(PoolFigures.REQUESTS, f.unit);
    assertEquals(1, f.windowArrivals, "requests");
    assertEquals(1, f.windowCompleted);
    assertEquals(1, f.totalTimed);
    assertEquals(2, f.tasks.windowCompleted, "pool tasks");
    long waitLow = (request.startTimeNanos - a1) + (d0 - c1),
        waitHigh = (request.startTimeNanos - a0) + (d1 - c0);
    long serviceLow = (e0 - request.startTimeNanos) + (g0 - d1),
        serviceHigh = (e1 - request.startTimeNanos) + (g1 - d0);
    long wait = Math.round(f.totalWaitSeconds * 1e9),
        service = Math.round(f.totalServiceSeconds * 1e9);
    assertTrue(
        wait >= waitLow - 1000 && wait <= waitHigh + 1000,
        "waits " + wait + " ns not in [" + waitLow + ", " + waitHigh + "]");
    assertTrue(
        service >= serviceLow - 1000 && service <= serviceHigh + 1000,
        "handling " + service + " ns not in [" + serviceLow + ", " + serviceHigh + "]");
    // a later asyncDispatch of the same object, not suspended now, is no request
    hooks.famArrive(TOMCAT, pool, completion, null);
    hooks.famStart(TOMCAT, pool, completion);
    hooks.reqResume(TOMCAT, request, true, null);
    hooks.reqResume(TOMCAT, request, false, null);
    hooks.famEnd(TOMCAT, pool, null, null);
    st.refresh(System.nanoTime());
    assertEquals(1, st.figures.windowCompleted, "requests ended");
  }

  @Test
  void tomcatsRequestStartsWhereTomcatStartedItUnlessThatReadingIsNotThisRequests() {
    Families.of(TOMCAT).requestStart(new CoyoteRequest()); // its method looked up once, here
    hooks.famArrive(TOMCAT, pool, task, null);
    CoyoteRequest stale = new CoyoteRequest();
    stale.startTimeNanos = System.nanoTime(); // before the task started: left from elsewhere
    hooks.famStart(TOMCAT, pool, task);
    CoyoteRequest request = new CoyoteRequest();
    request.startTimeNanos = System.nanoTime(); // Tomcat reads the request's first byte
    pause(3); // and parses its head
    long s1 = System.nanoTime();
    hooks.reqBegin(TOMCAT, request);
    hooks.reqEnd(TOMCAT, request, null);
    long e1 = System.nanoTime();
    long s2 = System.nanoTime();
    hooks.reqBegin(TOMCAT, stale);
    hooks.reqEnd(TOMCAT, stale, null);
    long e2 = System.nanoTime();
    hooks.famEnd(TOMCAT, pool, null, null);

    PoolState st = reg.get(pool);
    st.refresh(System.nanoTime());
    long service = Math.round(st.figures.totalServiceSeconds * 1e9);
    // the first from Tomcat's own start (3 ms before the adapter), the second from the adapter
    // (the stale reading ignored: taken, it would add more than 3 ms)
    long low = s1 - request.startTimeNanos, high = e1 - request.startTimeNanos + (e2 - s2);
    assertTrue(
        service >= low - 1000 && service <= high + 1000,
        "handling " + service + " ns not in [" + low + ", " + high + "]");
  }

  @Test
  void aRequestTheServerCompletesEarlyEndsThere() {
    hooks.famArrive(UndertowFamily.ID, pool, task, null);
    hooks.famStart(UndertowFamily.ID, pool, task);
    long s0 = System.nanoTime();
    hooks.reqBegin(UndertowFamily.ID, null);
    pause(2);
    hooks.reqDone(UndertowFamily.ID); // the exchange completes
    long d1 = System.nanoTime();
    hooks.reqBegin(
        UndertowFamily.ID, null); // the next request's head, read in passing: not counted
    hooks.reqEnd(UndertowFamily.ID, null, null);
    pause(5); // the connection's own work, still inside the entry point
    hooks.reqEnd(UndertowFamily.ID, null, null);
    hooks.famEnd(UndertowFamily.ID, pool, null, null);

    PoolState st = reg.get(pool);
    st.refresh(System.nanoTime());
    PoolFigures f = st.figures;
    assertEquals(1, f.windowCompleted, "requests");
    long service = Math.round(f.totalServiceSeconds * 1e9);
    assertTrue(service <= d1 - s0 + 1000, "handling " + service + " ns past the completion");
  }

  /**
   * The request window ends when the requests are counted, not when the agent's tick began: a
   * ticker descheduled in between (a loaded machine: 100 ms and more) would otherwise divide the
   * requests of one period by the length of another. (Before: CI under CPU hogs read Tomcat's λ
   * 425.4/s against the server log's 441.7/s.)
   */
  @Test
  void theRequestWindowEndsWhenTheRequestsAreCountedNotWhenTheTickBegan() {
    long c0 = System.nanoTime();
    hooks.famArrive(TOMCAT, pool, task, null);
    hooks.famStart(TOMCAT, pool, task);
    hooks.reqBegin(TOMCAT, null);
    hooks.reqEnd(TOMCAT, null, null);
    PoolState st = reg.get(pool);
    long b0 = System.nanoTime();
    st.refresh(b0);
    long b1 = System.nanoTime();
    pause(20);
    hooks.reqBegin(TOMCAT, null);
    hooks.reqEnd(TOMCAT, null, null);
    hooks.famEnd(TOMCAT, pool, null, null);
    long r0 = System.nanoTime(), wall0 = System.currentTimeMillis();
    st.refresh(r0 - 1_000_000_000L); // the tick began a second ago; its thread was descheduled
    long r1 = System.nanoTime(), wall1 = System.currentTimeMillis();
    PoolFigures f = st.figures;
    assertEquals(PoolFigures.REQUESTS, f.unit);
    assertEquals(2, f.windowCompleted, "requests in the window");
    // it starts with the first request (the view's creation) or at the first tick, and ends at
    // the second tick's reading
    long window = Math.round(f.windowSeconds * 1e9);
    assertTrue(
        window >= r0 - b1 && window <= r1 - c0,
        "request window " + window + " ns not in [" + (r0 - b1) + ", " + (r1 - c0) + "]");
    assertTrue(
        f.measuredMillis >= wall0 && f.measuredMillis <= wall1,
        "measured at " + f.measuredMillis + " not in [" + wall0 + ", " + wall1 + "]");
  }

  @Test
  void aPoolThatServedNoRequestIsShownPerTask() {
    hooks.famArrive(TOMCAT, pool, task, null);
    hooks.famStart(TOMCAT, pool, task);
    hooks.famEnd(TOMCAT, pool, null, null);
    PoolState st = reg.get(pool);
    st.refresh(System.nanoTime());
    assertEquals(PoolFigures.TASKS, st.figures.unit);
    assertEquals(1, st.figures.windowCompleted);
    assertNull(st.figures.tasks);
  }

  /** Stands for Jetty 12's {@code AdaptiveExecutionStrategy.SubStrategy} (ordinals matter). */
  enum SubStrategy {
    PRODUCE_CONSUME,
    PRODUCE_INVOKE_CONSUME,
    PRODUCE_EXECUTE_CONSUME,
    EXECUTE_PRODUCE_CONSUME
  }

  /**
   * Jetty's {@code ExecutorThreadPool} over an application's {@code ThreadPoolExecutor}, one
   * thread: a request Jetty runs in place (inside the application pool's task) and one Jetty queues
   * as a task of the application's pool. The application pool keeps its own tasks' figures; the
   * requests are Jetty's pool's only. (Before: the queued request counted for the application's
   * pool, whose row turned into requests, 1 of 2, in place of its 2 tasks.)
   */
  @Test
  void anApplicationPoolUnderJettysPoolKeepsItsTasksAndJettysPoolItsRequests() {
    int jetty = JettyFamily.ID;
    java.util.concurrent.ThreadPoolExecutor tpe =
        new java.util.concurrent.ThreadPoolExecutor(
            1,
            1,
            1,
            java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.SynchronousQueue<>());
    Object etp = new Object(), job1 = new Object(), job2 = new Object();
    Object conn1 = new Object(), conn2 = new Object();
    try {
      hooks.tpeExecute(tpe, job1); // the producing thread's job, a task of the application's pool
      hooks.tpeTaken(tpe, job1);
      // a request before Jetty's pool is known (a job queued before the agent attached): not the
      // application pool's either
      hooks.reqBegin(jetty, null);
      hooks.reqEnd(jetty, null, null);
      hooks.famArrive(jetty, etp, conn1, SubStrategy.EXECUTE_PRODUCE_CONSUME); // run in place
      hooks.reqBegin(jetty, null);
      hooks.reqEnd(jetty, null, null);
      hooks.famEnd(jetty, etp, SubStrategy.EXECUTE_PRODUCE_CONSUME, null);
      hooks.famArrive(jetty, etp, conn2, SubStrategy.PRODUCE_EXECUTE_CONSUME); // queued by Jetty
      hooks.tpeExecute(tpe, job2); // ... as a task of the application's pool
      hooks.tpeIdle(tpe); // job1 ends
      hooks.tpeTaken(tpe, job2);
      hooks.reqBegin(jetty, null); // outside any task of Jetty's pool
      hooks.reqEnd(jetty, null, null);
      hooks.tpeIdle(tpe); // job2 ends

      PoolState app = reg.get(tpe);
      app.refresh(System.nanoTime());
      assertEquals(PoolFigures.TASKS, app.figures.unit, "the application pool's row");
      assertEquals(2, app.figures.windowArrivals, "its tasks");
      assertEquals(2, app.figures.windowCompleted);
      assertNull(app.figures.tasks);
      PoolState server = reg.get(etp);
      server.refresh(System.nanoTime());
      assertEquals(PoolFigures.REQUESTS, server.figures.unit, "Jetty's row");
      assertEquals(1, server.figures.windowCompleted, "its request run in its own task");
      assertEquals(1, server.figures.tasks.windowCompleted, "its task run in place");
    } finally {
      tpe.shutdownNow();
    }
  }

  /**
   * A server's request in a task of a JDK pool, with no task of the server's own pool on the
   * thread: Tomcat's counts for that pool (Tomcat runs requests only on the executor it was given:
   * an older Tomcat's own pool, or the application's {@code ThreadPoolExecutor}), the innermost of
   * two nested JDK pools, waiting from its task's arrival there; Jetty's and Netty's do not (their
   * own pool's row has their requests; an application pool under them keeps its tasks). Before,
   * Tomcat's counted only for a pool of Tomcat's class: the application's executor read per task.
   */
  @Test
  void aTomcatRequestCountsForTheJdkPoolThatRunsItOthersOnlyForTheirOwn() {
    assertTrue(
        Families.of(TOMCAT).ownsJdkPool("org.apache.tomcat.util.threads.ThreadPoolExecutor"));
    assertTrue(!Families.of(TOMCAT).ownsJdkPool("java.util.concurrent.ThreadPoolExecutor"));
    assertTrue(
        !Families.of(JettyFamily.ID)
            .requestsOnJdkPool(java.util.concurrent.ThreadPoolExecutor.class));
    assertTrue(
        !Families.of(NettyFamily.ID)
            .requestsOnJdkPool(java.util.concurrent.ThreadPoolExecutor.class));
    java.util.concurrent.ThreadPoolExecutor outer = tpe(), inner = tpe();
    Object outerTask = new Object();
    try {
      // an application pool whose task runs the executor Tomcat was given (nested on this thread)
      hooks.tpeExecute(outer, outerTask);
      hooks.tpeTaken(outer, outerTask);
      long a0 = System.nanoTime();
      hooks.tpeExecute(inner, task); // Tomcat's poller hands the connection to its executor
      long a1 = System.nanoTime();
      pause(3);
      hooks.tpeTaken(inner, task);
      long s0 = System.nanoTime();
      hooks.reqBegin(TOMCAT, null);
      long s1 = System.nanoTime();
      pause(2);
      hooks.reqEnd(TOMCAT, null, null);
      hooks.reqBegin(JettyFamily.ID, null); // another server's request here: not this pool's
      hooks.reqEnd(JettyFamily.ID, null, null);
      hooks.tpeIdle(inner);
      hooks.tpeIdle(outer);

      PoolState st = reg.get(inner);
      st.refresh(System.nanoTime());
      assertEquals(PoolFigures.REQUESTS, st.figures.unit, "the executor Tomcat was given");
      assertEquals(1, st.figures.windowCompleted, "Tomcat's request only");
      assertEquals(1, st.figures.tasks.windowCompleted, "its task");
      long wait = Math.round(st.figures.totalWaitSeconds * 1e9);
      assertTrue(
          wait >= s0 - a1 - 1000 && wait <= s1 - a0 + 1000,
          "wait " + wait + " ns not in [" + (s0 - a1) + ", " + (s1 - a0) + "]");
      PoolState app = reg.get(outer);
      app.refresh(System.nanoTime());
      assertEquals(PoolFigures.TASKS, app.figures.unit, "the pool around it keeps its tasks");
      assertEquals(1, app.figures.windowCompleted);
    } finally {
      outer.shutdownNow();
      inner.shutdownNow();
    }
  }

  private static java.util.concurrent.ThreadPoolExecutor tpe() {
    return new java.util.concurrent.ThreadPoolExecutor(
        1,
        1,
        1,
        java.util.concurrent.TimeUnit.SECONDS,
        new java.util.concurrent.SynchronousQueue<>());
  }
}
