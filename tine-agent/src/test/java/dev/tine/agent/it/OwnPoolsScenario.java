package dev.tine.agent.it;

import dev.tine.WorkStealingPool;
import dev.tine.executor.MeasuredExecutor;
import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * An application with Tine's own pools: a fixed {@code MeasuredExecutor} ({@code me-fixed}, 2
 * threads), a self-sizing one ({@code me-self}, 1 to 4) and a {@code WorkStealingPool} ({@code
 * wsp}, parallelism 2). Commands: {@code sizes} (prints {@code SIZES me-fixed=n me-self=n
 * wsp=parallelism}, from their own getters), {@code quit}.
 */
public final class OwnPoolsScenario {
  private OwnPoolsScenario() {}

  public static void main(String[] args) throws Exception {
    MeasuredExecutor fixed =
        MeasuredExecutor.builder().name("me-fixed").poolSize(2).registerMXBean(false).build();
    MeasuredExecutor self =
        MeasuredExecutor.builder()
            .name("me-self")
            .poolSize(2)
            .selfSizing(1, 4)
            .registerMXBean(false)
            .build();
    WorkStealingPool wsp = WorkStealingPool.builder().name("wsp").parallelism(2).build();
    for (int i = 0; i < 4; i++) {
      fixed.submit(() -> {}).get();
      self.submit(() -> {}).get();
      wsp.submit(() -> {}).join();
    }
    System.out.println("READY " + ProcessHandle.current().pid());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      switch (line.trim()) {
        case "sizes" ->
            System.out.println(
                "SIZES me-fixed="
                    + fixed.poolSize()
                    + " me-self-selfSizing="
                    + self.selfSizing()
                    + " wsp="
                    + wsp.parallelism());
        case "quit" -> {
          fixed.close();
          self.close();
          wsp.close();
          System.exit(0);
        }
        default -> System.out.println("UNKNOWN " + line);
      }
    }
  }
}
