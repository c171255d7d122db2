package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Latent forks: join orders, promotion, outcomes through promoted and unpromoted forks, Tine. */
@Timeout(60)
class LatentForksTest {

  static final class Boom extends RuntimeException {
    Boom(String m) {
      super(m);
    }
  }

  static Task<Long> constant(long v) {
    return Task.of(() -> v);
  }

  static Task<Long> failing(Boom b) {
    return Task.of(() -> {
      throw b;
    });
  }

  @Test
  void latentIsTheDefault() {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      assertTrue(pool.latentForks());
      pool.invoke(new Programs.Fib(15));
      PoolStats s = pool.stats();
      assertEquals(s.forks(), s.latentForks());
      assertEquals(
          s.forks(),
          s.inlineJoins(),
          "at parallelism 1 nobody is hungry: every join is a direct call");
      assertEquals(0, s.promotions());
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void everyJoinOrder(int p) {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      long r =
          pool.invoke(
              Task.of(() -> {
                // fork a, fork b, join a, join b
                Task<Long> a = new Programs.Fib(18).fork(), b = new Programs.Fib(17).fork();
                long ab = a.join() + b.join();
                // fork a, fork b, join b, join a
                Task<Long> c = new Programs.Fib(16).fork(), d = new Programs.Fib(15).fork();
                long dc = d.join() + c.join();
                // fork in a loop, join in fork order
                Task<?>[] kids = new Task<?>[20];
                for (int i = 0; i < kids.length; i++) kids[i] = new Programs.Fib(i).fork();
                long loop = 0;
                for (Task<?> k : kids) loop += (Long) k.join();
                // join twice: the second join returns the stored result
                long again = a.join();
                return ab + dc + loop + again;
              }));
      long loop = 0;
      for (int i = 0; i < 20; i++) loop += Programs.seqFib(i);
      long expected =
          Programs.seqFib(18)
              + Programs.seqFib(17)
              + Programs.seqFib(16)
              + Programs.seqFib(15)
              + loop
              + Programs.seqFib(18);
      assertEquals(expected, r);
    }
  }

  @Test
  void forkedButNeverJoinedStillRuns() {
    AtomicInteger ran = new AtomicInteger();
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      pool.invoke(
          Task.of(() -> {
            for (int i = 0; i < 100; i++)
              Task.of(ran::incrementAndGet)
                  .fork(); // the fork/join tuning study's quicksort never joins
            return null;
          }));
      pool.submit(() -> null).join(); // the worker drains its latent stack after the root returns
    }
    assertEquals(100, ran.get());
  }

  /** Waits, inside a worker, until a fork of ours has been promoted (the other worker is idle). */
  static void awaitPromotion(Task<?> t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!t.wasPromoted() && !t.isDone() && System.nanoTime() < deadline) {
      Tine.poll();
      Thread.onSpinWait();
    }
  }

  @Test
  void promotionHappensAndStolenForksAreExact() {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      long steals = 0;
      for (int attempt = 0; attempt < 20 && steals == 0; attempt++) {
        assertEquals(Programs.seqFib(27), pool.invoke(new Programs.Fib(27)));
        steals = pool.stats().promotedStolen();
      }
      PoolStats s = pool.stats();
      assertTrue(s.promotions() > 0, s.toString());
      assertTrue(s.promotedStolen() > 0, "with 2 workers some promoted forks are stolen: " + s);
    }
  }

  /**
   * A worker in a long leaf promotes only where it polls (or forks, or joins), so what it leaves
   * latent there is hidden from idle workers: when one is hungry, the promotion moves every latent
   * fork but the newest, not a share. Deterministic: the other two workers are busy while the root
   * forks six (so only the oldest goes to the empty deque, nobody being hungry); then they are let
   * go, one takes that fork and blocks in it, the other stays hungry until the root's poll, and
   * that one poll must move forks 1 to 3 together, skip fork 4 (cancelled by the root) and leave
   * fork 5, the newest. Moving the older half (as before) moves two; the hungry worker takes one,
   * nobody is hungry any more, and fork 3 stays latent (Micro at 8 and 16 workers, 1.5-1.8x the
   * JDK; latent-forks.md, "Promotion at 16 workers"). Moving every one promotes the newest too,
   * which the owner would rather join inline or take back; so does counting slots without keeping
   * the newest, once the cancelled fork is skipped.
   */
  @Test
  @Timeout(60)
  void aHungryWorkerGetsEveryLatentForkButTheNewestAtOnce() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(3).build()) {
      CountDownLatch blockersIn = new CountDownLatch(2), gate = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger started = new AtomicInteger();
      try {
        Task<?>[] blockers = new Task<?>[2];
        for (int i = 0; i < blockers.length; i++) {
          blockers[i] =
              pool.submit(() -> {
                blockersIn.countDown();
                gate.await();
                return null;
              });
        }
        assertTrue(blockersIn.await(10, TimeUnit.SECONDS), "both other workers are busy");
        String r =
            pool.invoke(
                Task.of(() -> {
                  Task<?>[] forks = new Task<?>[6];
                  for (int i = 0; i < forks.length; i++) {
                    int v = i;
                    forks[i] =
                        Task.of(
                                () -> {
                                  started.incrementAndGet();
                                  awaitUninterruptibly(release);
                                  return v;
                                })
                            .fork();
                  }
                  for (int i = 1; i < forks.length; i++) {
                    assertFalse(forks[i].wasPromoted(), "nobody hungry: fork " + i + " latent");
                  }
                  // A cancelled fork just below the newest: skipped, and not counted, by the
                  // promotion, which must still stop short of the newest.
                  assertTrue(forks[4].cancel());
                  gate.countDown(); // both other workers come looking for work
                  // A long leaf that polls.
                  long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                  while (!(started.get() >= 2 && promotedUpTo(forks, 3))
                      && System.nanoTime() < deadline) {
                    Tine.poll();
                    Thread.onSpinWait();
                  }
                  for (int i = 0; i < 4; i++) {
                    assertTrue(
                        forks[i].wasPromoted(),
                        "fork "
                            + i
                            + " still latent after a promotion for a hungry worker; "
                            + pool.stats());
                  }
                  assertFalse(forks[5].wasPromoted(), "the newest fork stays latent");
                  release.countDown();
                  int sum = 0;
                  for (int i = 0; i < forks.length; i++) {
                    if (i != 4) sum += (Integer) forks[i].join();
                  }
                  assertEquals(11, sum);
                  assertThrows(CancellationException.class, forks[4]::join);
                  return "ok";
                }));
        assertEquals("ok", r);
        assertEquals(5, started.get(), "each fork ran once, the cancelled one never");
        for (Task<?> b : blockers) b.join();
      } finally {
        gate.countDown();
        release.countDown();
      }
    }
  }

  /**
   * A batch forked and then joined oldest first (ported {@code ForkJoinTask} code does this): the
   * join runs the batch's newer forks itself, one by one, and must restock its emptied deque before
   * each, or a hungry worker finds nothing until the join returns. Deterministic: the thief has
   * taken and finished fork 0 (so the deque was emptied by a steal) before the root joins fork 1;
   * the fork the root then runs itself waits until the thief has run a second one, which it can
   * only if the join promoted something. Without the restock that wait reaches its deadline (59-63
   * of 64 leaves ran on one worker before; latent-forks.md, "Joins promote too").
   */
  @Test
  @Timeout(60)
  void aBatchJoinedOldestFirstIsShared() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      AtomicInteger byThief = new AtomicInteger();
      AtomicInteger timedOut = new AtomicInteger();
      CountDownLatch firstStolen = new CountDownLatch(1);
      CountDownLatch gate = new CountDownLatch(1);
      // The other worker is busy until all eight are forked: only fork 0 reaches the deque.
      Task<?> blocker = occupyAWorker(pool, gate);
      long r =
          pool.invoke(
              Task.of(() -> {
                Thread root = Thread.currentThread();
                Task<?>[] forks = new Task<?>[8];
                for (int i = 0; i < forks.length; i++) {
                  int v = i;
                  forks[i] =
                      Task.of(
                              () -> {
                                if (Thread.currentThread() != root) {
                                  byThief.incrementAndGet();
                                  firstStolen.countDown();
                                  return v;
                                }
                                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                                // (one wait in vain is enough: the rest return at once)
                                while (byThief.get() < 2 && timedOut.get() == 0) { // no poll
                                  if (System.nanoTime() > deadline) {
                                    timedOut.incrementAndGet();
                                    break;
                                  }
                                  Thread.onSpinWait();
                                }
                                return v;
                              })
                          .fork();
                }
                gate.countDown();
                // Fork 0 went to the empty deque at its fork: wait for the other worker to run it.
                spinUntilOpen(firstStolen, "the other worker takes the first fork");
                long sum = 0;
                for (Task<?> f : forks) sum += (Integer) f.join();
                return sum;
              }));
      gate.countDown();
      blocker.join();
      assertEquals(28, r);
      assertEquals(0, timedOut.get(), "the joiner's own leaf waited in vain: " + pool.stats());
      assertTrue(byThief.get() >= 2, "the other worker ran more than the first fork");
    }
  }

  /**
   * A {@code get} runs only its target, also where a join would restock first: the deque emptied by
   * a steal, the target the oldest of the caller's latent forks. A restock there would promote the
   * target and leave the pop to run a newer, unrelated fork on the caller (found in review).
   */
  @Test
  @Timeout(60)
  void aGetAfterAStealRunsOnlyItsTarget() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      CountDownLatch gate = new CountDownLatch(1), firstStolen = new CountDownLatch(1);
      java.util.Set<Integer> rootRan = java.util.concurrent.ConcurrentHashMap.newKeySet();
      Task<?> blocker = occupyAWorker(pool, gate);
      String r =
          pool.invoke(
              Task.of(() -> {
                Thread root = Thread.currentThread();
                Task<?>[] forks = new Task<?>[8];
                for (int i = 0; i < forks.length; i++) {
                  int v = i;
                  forks[i] =
                      Task.of(
                              () -> {
                                if (Thread.currentThread() == root) {
                                  rootRan.add(v);
                                } else {
                                  firstStolen.countDown();
                                }
                                return v;
                              })
                          .fork();
                }
                gate.countDown();
                spinUntilOpen(firstStolen, "the other worker takes the first fork");
                assertEquals(1, getOrFail(forks[1]));
                assertEquals(java.util.Set.of(1), rootRan, "get ran only its target here");
                long sum = 0;
                for (Task<?> f : forks) sum += (Integer) f.join();
                assertEquals(28, sum);
                return "ok";
              }));
      gate.countDown();
      blocker.join();
      assertEquals("ok", r);
    }
  }

  /** Submits a task that holds one worker until {@code gate} opens; returns once it holds it. */
  private static Task<?> occupyAWorker(WorkStealingPool pool, CountDownLatch gate)
      throws InterruptedException {
    CountDownLatch in = new CountDownLatch(1);
    Task<?> blocker =
        pool.submit(() -> {
          in.countDown();
          gate.await();
          return null;
        });
    assertTrue(in.await(10, TimeUnit.SECONDS), "a worker is held");
    return blocker;
  }

  /**
   * Waits inside a worker for {@code latch} to open, spinning: a worker parked in a wait is a
   * blocked owner whose latent forks others may claim, which these tests must not depend on.
   */
  private static void spinUntilOpen(CountDownLatch latch, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (latch.getCount() != 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(0, latch.getCount(), what);
  }

  private static Object getOrFail(Task<?> t) {
    try {
      return t.get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean promotedUpTo(Task<?>[] forks, int last) {
    for (int i = 0; i <= last; i++) {
      if (!forks[i].wasPromoted()) {
        return false;
      }
    }
    return true;
  }

  @Test
  void anEmptyDequeIsStockedWithTheOldestForkEvenWhenNobodyIsHungry() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      CountDownLatch busy = new CountDownLatch(1), release = new CountDownLatch(1);
      Task<Void> blocker =
          pool.submit(() -> {
            busy.countDown();
            release.await();
            return null;
          });
      assertTrue(busy.await(10, TimeUnit.SECONDS));
      try {
        String r =
            pool.invoke(
                Task.of(() -> {
                  Task<Long> first = new Programs.Fib(10).fork(),
                      second = new Programs.Fib(11).fork();
                  // The other worker is busy, so nobody is hungry: only the empty deque is stocked.
                  assertTrue(
                      first.wasPromoted() || first.isDone(),
                      "the oldest fork goes to the empty deque");
                  assertFalse(
                      second.wasPromoted(),
                      "the deque already offers work: the newer fork stays latent");
                  assertEquals(Programs.seqFib(11), second.join());
                  assertEquals(Programs.seqFib(10), first.join());
                  return "ok";
                }));
        assertEquals("ok", r);
      } finally {
        release.countDown();
      }
      blocker.join();
    }
  }

  @Test
  @Timeout(60)
  void aDequeEmptiedByAStealIsRestockedAtTheNextFork() throws Exception {
    // The fork does not read the deque: a thief's steal sets the owner's dequeEmptied word, and
    // the owner's next fork sees it and promotes. Without the thief's store the deque stays empty
    // and the next fork latent, while the other worker could take it.
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      for (int round = 0; round < 20; round++) {
        CountDownLatch stolen = new CountDownLatch(1), release = new CountDownLatch(1);
        String r =
            pool.invoke(
                Task.of(() -> {
                  Thread owner = Thread.currentThread();
                  Task<Boolean> first =
                      Task.of(
                              () -> {
                                boolean ranElsewhere = Thread.currentThread() != owner;
                                stolen.countDown();
                                try {
                                  release.await();
                                } catch (InterruptedException e) {
                                  throw new AssertionError(e);
                                }
                                return ranElsewhere;
                              })
                          .fork(); // the deque starts empty: promoted, then stolen
                  long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                  while (stolen.getCount() != 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // runnable: no claim can take our forks meanwhile
                  }
                  assertEquals(0, stolen.getCount(), "the other worker took the first fork");
                  Task<Long> second = new Programs.Fib(12).fork();
                  boolean restocked = second.wasPromoted() || second.isDone();
                  release.countDown();
                  assertEquals(Programs.seqFib(12), second.join());
                  assertTrue(first.join(), "the first fork ran on the thief");
                  assertTrue(restocked, "a steal emptied the deque: the next fork goes there");
                  return "ok";
                }));
        assertEquals("ok", r);
      }
    }
  }

  @Test
  void aStolenTaskReturnsItsOwnResultNeverItsThief() {
    // A thief records itself in the task until the task completes (a hint for joiners); the
    // outcome must replace it, null included.
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      for (int round = 0; round < 50; round++) {
        Thread[] ranOn = new Thread[2];
        Object[] results =
            pool.invoke(
                Task.of(() -> {
                  Thread me = Thread.currentThread();
                  Task<Void> v =
                      Task.<Void>of(
                              () -> {
                                ranOn[0] = Thread.currentThread();
                                return null;
                              })
                          .fork();
                  Task<Thread> t =
                      Task.of(
                              () -> {
                                ranOn[1] = Thread.currentThread();
                                return Thread.currentThread();
                              })
                          .fork();
                  long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                  while (!v.isDone() && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // v is in our deque: the other worker steals it
                  }
                  return new Object[] {v.join(), t.join(), me};
                }));
        assertEquals(null, results[0], "a stolen Task<Void> joins to null");
        assertSame(ranOn[1], results[1]);
        if (ranOn[0] != null && ranOn[0] != results[2]) {
          return; // a stolen task, checked
        }
      }
      throw new AssertionError("no fork was stolen in 50 rounds");
    }
  }

  @Test
  void exceptionThroughUnpromotedFork() {
    Boom boom = new Boom("unpromoted");
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      Boom thrown =
          assertThrows(
              Boom.class,
              () ->
                  pool.invoke(
                      Task.of(() -> {
                        Task<Long> f = failing(boom).fork();
                        assertFalse(f.wasPromoted());
                        return f.join();
                      })));
      assertSame(boom, thrown);
      assertEquals(0, pool.stats().promotions());
    }
  }

  @Test
  void exceptionThroughPromotedFork() {
    Boom boom = new Boom("promoted");
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      AtomicReference<Boolean> promoted = new AtomicReference<>();
      Boom thrown =
          assertThrows(
              Boom.class,
              () ->
                  pool.invoke(
                      Task.of(() -> {
                        Task<Long> f = failing(boom).fork();
                        awaitPromotion(f);
                        promoted.set(f.wasPromoted());
                        return f.join();
                      })));
      assertSame(boom, thrown);
      assertTrue(promoted.get(), "the fork was promoted while the other worker was hungry");
    }
  }

  @Test
  void cancellationOfUnpromotedFork() {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicInteger ran = new AtomicInteger();
      String r =
          pool.invoke(
              Task.of(() -> {
                Task<Integer> f = Task.of(ran::incrementAndGet).fork();
                assertTrue(f.cancel(), "the owner cancels its own latent fork");
                assertTrue(f.isCancelled());
                assertThrows(CancellationException.class, f::join);
                return "ok";
              }));
      assertEquals("ok", r);
      assertEquals(0, ran.get(), "a cancelled latent fork never runs");
    }
  }

  /**
   * A promoted fork that a thief is running can be cancelled: its joiner sees the cancellation at
   * once, and the running body still ends normally, exactly once (it is not lost or rerun).
   */
  @Test
  void cancellationOfPromotedFork() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger started = new AtomicInteger(), completed = new AtomicInteger();
      String r =
          pool.invoke(
              Task.of(() -> {
                Task<Long> f =
                    Task.of(
                            () -> {
                              started.incrementAndGet();
                              try {
                                release.await();
                              } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                              }
                              completed.incrementAndGet();
                              return 5L;
                            })
                        .fork();
                awaitPromotion(f); // the other worker is idle, hence hungry: the fork is promoted
                assertTrue(f.wasPromoted());
                long deadline =
                    System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
                while (started.get() == 0 && System.nanoTime() < deadline) {
                  Thread.onSpinWait(); // the idle worker steals and starts it
                }
                assertEquals(1, started.get(), "the thief started the fork");
                assertTrue(f.cancel(), "a promoted fork, queued or running, can be cancelled");
                assertThrows(CancellationException.class, f::join);
                assertTrue(f.isCancelled());
                release.countDown();
                return "ok";
              }));
      assertEquals("ok", r);
      pool.shutdown();
      assertTrue(pool.awaitTermination(20, java.util.concurrent.TimeUnit.SECONDS));
      assertEquals(1, started.get());
      assertEquals(1, completed.get(), "the running body ends normally, once");
    }
  }

  @Test
  void otherThreadsWaitForLatentForksAndCannotCancelThem() throws Exception {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicReference<Task<Long>> shared = new AtomicReference<>();
      CountDownLatch forked = new CountDownLatch(1), checked = new CountDownLatch(1);
      AtomicReference<Boolean> cancelled = new AtomicReference<>();
      Thread outsider =
          new Thread(() -> {
            try {
              forked.await();
              cancelled.set(shared.get().cancel());
              checked.countDown();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      outsider.start();
      Task<Long> root =
          pool.submit(
              Task.of(() -> {
                Task<Long> f = new Programs.Fib(20).fork();
                shared.set(f);
                forked.countDown();
                try {
                  checked.await();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                return f.join();
              }));
      assertEquals(Programs.seqFib(20), root.join());
      assertEquals(
          Programs.seqFib(20),
          shared.get().get(5, TimeUnit.SECONDS),
          "outside get() sees the result");
      outsider.join();
      assertEquals(Boolean.FALSE, cancelled.get(), "another thread cannot cancel a latent fork");
    }
  }

  // ------------------------------------------------------------------------------- Tine API

  static long fib(int n) {
    return n < 2
        ? n
        : Tine.joinLong(LatentForksTest::fib, n - 1, LatentForksTest::fib, n - 2, Long::sum);
  }

  static long fibSuppliers(int n) {
    return n < 2
        ? n
        : Tine.joinLong(() -> fibSuppliers(n - 1), () -> fibSuppliers(n - 2), Long::sum);
  }

  static long fibGeneric(int n) {
    return n < 2
        ? n
        : Tine.<Long, Long, Long>join(() -> fibGeneric(n - 1), () -> fibGeneric(n - 2), Long::sum);
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2, 4})
  void primitiveAndGenericJoinsAreExact(int p) {
    for (boolean eager : new boolean[] {false, true}) {
      try (WorkStealingPool pool =
          WorkStealingPool.builder().parallelism(p).eagerForks(eager).build()) {
        assertEquals(Programs.seqFib(24), pool.invoke(Task.of(() -> fib(24))));
        assertEquals(Programs.seqFib(22), pool.invoke(Task.of(() -> fibSuppliers(22))));
        assertEquals(Programs.seqFib(20), pool.invoke(Task.of(() -> fibGeneric(20))));
        AtomicInteger a = new AtomicInteger(), b = new AtomicInteger();
        pool.invoke(
            Task.of(() -> {
              Tine.join(a::incrementAndGet, b::incrementAndGet);
              return null;
            }));
        assertEquals(1, a.get());
        assertEquals(1, b.get());
      }
    }
    assertEquals(Programs.seqFib(20), fib(20), "from outside any pool: the common pool");
  }

  @Test
  void joinLongExceptions() {
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
      AtomicInteger secondRan = new AtomicInteger();
      Boom first = new Boom("first");
      assertSame(
          first,
          assertThrows(
              Boom.class,
              () ->
                  pool.invoke(
                      Task.of(() ->
                          Tine.joinLong(
                              () -> {
                                throw first;
                              },
                              () -> secondRan.incrementAndGet(),
                              Long::sum)))));
      assertEquals(
          0, secondRan.get(), "a latent second half is dropped when the first half throws");
      Boom second = new Boom("second");
      assertSame(
          second,
          assertThrows(
              Boom.class,
              () ->
                  pool.invoke(
                      Task.of(() ->
                          Tine.joinLong(
                              () -> 1L,
                              () -> {
                                throw second;
                              },
                              Long::sum)))));
      // the pool is still healthy
      assertEquals(Programs.seqFib(18), pool.invoke(Task.of(() -> fib(18))));
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2, 4})
  void forRangeVisitsEveryIndexOnce(int p) {
    int n = 1_000_003;
    AtomicIntegerArray seen = new AtomicIntegerArray(n);
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      pool.invoke(
          Task.of(() -> {
            Tine.forRange(
                0,
                n,
                i -> {
                  seen.incrementAndGet(i);
                  if ((i & 1023) == 0) Programs.seqFib(12); // uneven work
                });
            return null;
          }));
    }
    for (int i = 0; i < n; i++) assertEquals(1, seen.get(i), "index " + i);
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2, 4})
  void reductionsAreExactAndInIndexOrder(int p) {
    int n = 2_000_000;
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(p).build()) {
      long sum =
          pool.invoke(Task.of(() -> Tine.reduceLong(0, n, 0L, i -> (long) i * i, Long::sum)));
      long expected = 0;
      for (long i = 0; i < n; i++) expected += i * i;
      assertEquals(expected, sum);
      // associative but not commutative: "the first index that is a multiple of 7919 after 1000"
      long first =
          pool.invoke(
              Task.of(() ->
                  Tine.reduceLong(
                      1000, n, -1L, i -> i % 7919 == 0 ? i : -1L, (a, b) -> a != -1L ? a : b)));
      assertEquals(7919L, first);
      // a non-commutative combine over all indexes: the last index wins
      long last =
          pool.invoke(
              Task.of(() -> Tine.reduceLong(0, n, -1L, i -> i, (a, b) -> b != -1L ? b : a)));
      assertEquals(n - 1, last);
      double dsum =
          pool.invoke(Task.of(() -> Tine.reduceDouble(0, 1000, 0.0, i -> 0.5, Double::sum)));
      assertEquals(500.0, dsum);
    }
  }

  @Test
  void rangeExceptionsPropagate() {
    Boom boom = new Boom("range");
    try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
      assertSame(
          boom,
          assertThrows(
              Boom.class,
              () ->
                  pool.invoke(
                      Task.of(() -> {
                        Tine.forRange(
                            0,
                            1_000_000,
                            i -> {
                              if (i == 777_777) throw boom;
                            });
                        return null;
                      }))));
      assertThrows(IllegalArgumentException.class, () -> Tine.forRange(5, 4, i -> {}));
    }
  }
}
