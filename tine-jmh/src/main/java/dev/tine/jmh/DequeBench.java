package dev.tine.jmh;

import dev.tine.deque.WorkDeque;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The deque's own costs, single-threaded: push+pop (the owner's fork/join round trip when nothing
 * is stolen) and push+steal (a steal's CAS and fences, uncontended).
 *
 * <pre>
 * java -jar tine-jmh/target/benchmarks.jar DequeBench
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DequeBench {
  final WorkDeque<Object> deque = new WorkDeque<>();
  final Object item = new Object();

  @Benchmark
  public Object pushPop() {
    deque.push(item);
    return deque.pop();
  }

  @Benchmark
  public Object pushSteal() {
    deque.push(item);
    return deque.steal();
  }
}
