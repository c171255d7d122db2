package dev.tine.bench.cli;

import dev.tine.bench.experiments.PoolVsThreads;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tine experiment pool-vs-threads}: the thread-pool blog post. */
@Command(
    name = "pool-vs-threads",
    header =
        "Sequential vs a thread per task vs pools vs virtual threads (the thread-pool blog post).",
    mixinStandardHelpOptions = true,
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.DONE, ExitCodes.FAILED, ExitCodes.BAD_INPUT},
    description = {
      "The thread-pool blog post: a loopback server sends N random ints 1..10; each becomes a sleep of that many ms,",
      "run sequentially, by a thread per task, by the blog post's ThreadPoolExecutor, fixed and cached",
      "pools, virtual threads and Tine's MeasuredExecutor. Prints the time to submit all tasks",
      "(what the blog post measured) and the time until all are done."
    })
final class PoolVsThreadsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--tasks",
      paramLabel = "N",
      description = "Tasks (default 1000, as in the blog post; 200 with --quick).")
  Integer tasks;

  @Option(names = "--quick", description = "200 tasks instead of 1000 (a few seconds).")
  boolean quick;

  @Mixin JsonOutput json = new JsonOutput();

  @Override
  public Integer call() throws Exception {
    int tasks = this.tasks != null ? this.tasks : quick ? 200 : 1000;
    Check.inRange(spec, "--tasks", tasks, 1, 1_000_000);
    json.check(spec);
    PrintStream out = json.tables();
    out.println(
        "the thread-pool blog post: "
            + tasks
            + " tasks, each sleeping 1..10 ms (mean 5.5 ms), ints from a loopback server");
    PoolVsThreads exp = new PoolVsThreads(tasks);
    List<PoolVsThreads.Result> rs = exp.run(out);
    out.println();
    PoolVsThreads.print(rs, out);
    out.println();
    out.println(
        "submit ms: the client's loop only — read an int, hand over the task — which is all the blog post timed.");
    out.println(
        "  A pool returns as soon as the task is queued, so its figure says nothing about when the work is done.");
    out.println(
        "elapsed ms: until every sleep has finished. The sum of the sleeps is the sequential time; a strategy");
    out.println(
        "  with T threads needs at least that / T, and at least the time to read the ints.");
    for (PoolVsThreads.Result r : rs) {
      if (r.strategy().startsWith("blog-tpe")) out.println(r.strategy() + ": " + r.note());
    }
    out.println("MeasuredExecutor's own figures: " + exp.measuredSummary());
    json.write(rs.stream().map(PoolVsThreads.Result::toMap).toList());
    return 0;
  }
}
