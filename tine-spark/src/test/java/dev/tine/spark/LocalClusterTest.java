package dev.tine.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tine.spark.programs.Fib;
import dev.tine.spark.programs.Uts;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.ExecutorLostFailure;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Two executor JVMs on this machine ({@code local-cluster[2,1,1024]}, Spark's own test cluster):
 * the done-when sizes, and an executor JVM killed mid-job. Needs SPARK_HOME
 * (scripts/fetch-spark.sh) and runs only with -Pspark-cluster. Every test has a hard timeout: a
 * broken executor launch does not fail, it relaunches.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LocalClusterTest {
  static final String MASTER = "local-cluster[2,1,1024]";
  static JavaSparkContext sc;

  /** Running tasks per executor id, and the tasks that ended, by outcome. */
  static final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

  static final AtomicInteger succeeded = new AtomicInteger();
  static final AtomicInteger lostToExecutor = new AtomicInteger();

  @BeforeAll
  static void start() {
    sc = SparkContexts.start(MASTER, LocalClusterTest.class);
    sc.sc()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskStart(SparkListenerTaskStart e) {
                running
                    .computeIfAbsent(e.taskInfo().executorId(), k -> new AtomicInteger())
                    .incrementAndGet();
              }

              @Override
              public void onTaskEnd(SparkListenerTaskEnd e) {
                running
                    .computeIfAbsent(e.taskInfo().executorId(), k -> new AtomicInteger())
                    .decrementAndGet();
                if (e.reason() == Success$.MODULE$) {
                  succeeded.incrementAndGet();
                } else if (e.reason() instanceof ExecutorLostFailure) {
                  lostToExecutor.incrementAndGet();
                }
              }
            });
  }

  @AfterAll
  static void stop() {
    if (sc != null) sc.stop();
  }

  @Test
  @Order(1)
  void fib45IsExactOnTwoExecutorJvms() {
    TreeResult<Long> r = TreeJob.of(new Fib(), 45).run(sc);
    System.out.print(r.table());
    assertEquals(Fib.exact(45), r.value());
    assertEquals(2, r.executors().size(), "pieces ran on both executors:\n" + r.table());
    assertTrue(r.reports().stream().noneMatch(p -> p.executor().equals("driver")));
  }

  @Test
  @Order(2)
  void utsOfMoreThan1e8NodesIsExactOnTwoExecutorJvms() {
    Uts uts = new Uts(4, 13, 8);
    Uts.Node root = Uts.root(UTS_SEED);
    long expect = uts.countSequentially(root);
    assertTrue(expect >= 100_000_000L, "the tree has " + expect + " nodes");
    TreeResult<Long> r = TreeJob.of(uts, root).run(sc);
    System.out.print(r.table());
    assertEquals(expect, r.value());
  }

  /**
   * A seed whose depth-13 tree has more than 10^8 nodes (seed 4 gives 111,451,846; seed 19,
   * 96,198,564).
   */
  static final long UTS_SEED = 4;

  @Test
  @Order(3)
  void killingAnExecutorJvmMidJobLeavesTheResultExact() throws Exception {
    int n = 44;
    int succeededBefore = succeeded.get();
    int lostBefore = lostToExecutor.get();
    CompletableFuture<TreeResult<Long>> job =
        CompletableFuture.supplyAsync(() -> TreeJob.of(new Fib(), n).pieces(24).run(sc));

    // wait until the job is under way: a piece done, and an executor busy with another
    String victim = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (victim == null && System.nanoTime() < deadline && !job.isDone()) {
      if (succeeded.get() > succeededBefore) {
        victim =
            running.entrySet().stream()
                .filter(e -> e.getValue().get() > 0 && !e.getKey().equals("driver"))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
      }
      if (victim == null) Thread.sleep(20);
    }
    assertNotNull(victim, "no executor was running a piece of the job");
    ProcessHandle jvm = executorJvm(victim).orElseThrow();
    assertFalse(job.isDone(), "the job ended before the kill");
    assertTrue(jvm.destroyForcibly(), "could not kill executor " + victim);
    jvm.onExit().get(60, TimeUnit.SECONDS);

    TreeResult<Long> r = job.get(400, TimeUnit.SECONDS);
    System.out.print(r.table());
    assertEquals(Fib.exact(n), r.value());
    assertTrue(
        lostToExecutor.get() > lostBefore,
        "no task was lost with the executor: nothing was retried");
    // every piece reported by a successful run exactly once
    assertEquals(r.pieces(), r.reports().stream().mapToInt(PieceReport::piece).distinct().count());
    assertEquals(r.pieces(), r.reports().size());
  }

  /** The executor JVM with this id: a child of this JVM (local-cluster's workers live here). */
  static Optional<ProcessHandle> executorJvm(String executorId) {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> {
          String cmd = p.info().commandLine().orElse("");
          return cmd.contains("CoarseGrainedExecutorBackend")
              && cmd.contains("--executor-id " + executorId + " ");
        })
        .findFirst();
  }
}
