package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;

/**
 * Lea's paper §4.3: Lea's Sort over four data widths. Cilksort (the shape of {@link CilkSort}: four
 * quarter sorts, two merges, one merge back, merges split by binary search) over byte, short, int
 * or long arrays holding the same values 0..255, so that only the bytes moved per element differ.
 * The recursion is written once over a {@link Kernel} whose per-type loops do the element work (one
 * call per block of 2048 elements); results are checked for order and for the multiset (the
 * histogram of the 256 values).
 */
public final class WidthSort<A> implements Program {
  static final int QUICKSIZE = 2048, MERGESIZE = 2048;
  final Kernel<A> k;

  private WidthSort(Kernel<A> k) {
    this.k = k;
  }

  /** The four widths, narrowest first. */
  public static List<Program> all() {
    return Arrays.stream(Kernel.ALL).<Program>map(WidthSort::of).toList();
  }

  private static <A> WidthSort<A> of(Kernel<A> k) {
    return new WidthSort<>(k);
  }

  /** The element type: byte, short, int or long. */
  public String type() {
    return k.type;
  }

  public int bytes() {
    return k.bytes;
  }

  @Override
  public String name() {
    return "sort-" + k.type;
  }

  @Override
  public String description() {
    return "cilksort of " + k.type + " values 0..255 (Lea's paper §4.3)";
  }

  /** How the independent pieces of one step run: in order, as Tine tasks, or as JDK tasks. */
  interface Par {
    void all(Runnable... steps);
  }

  static final Par SEQ =
      steps -> {
        for (Runnable r : steps) r.run();
      };

  static final Par TINE =
      steps -> {
        Task<?>[] ts = new Task<?>[steps.length];
        for (int i = 0; i < steps.length; i++) {
          Runnable r = steps[i];
          ts[i] =
              Task.of(() -> {
                r.run();
                return null;
              });
        }
        Task.invokeAll(ts);
      };

  static final Par JDK =
      steps -> {
        RecursiveAction[] ts = new RecursiveAction[steps.length];
        for (int i = 0; i < steps.length; i++) {
          Runnable r = steps[i];
          ts[i] =
              new RecursiveAction() {
                @Override
                protected void compute() {
                  r.run();
                }
              };
        }
        ForkJoinTask.invokeAll(ts);
      };

  void merge(Par par, A s, int lo1, int hi1, int lo2, int hi2, A d, int lod) {
    if (hi2 - lo2 > hi1 - lo1) { // make run 1 the longer one
      int t = lo1;
      lo1 = lo2;
      lo2 = t;
      t = hi1;
      hi1 = hi2;
      hi2 = t;
    }
    if (hi1 < lo1) {
      System.arraycopy(s, lo2, d, lod, hi2 - lo2 + 1);
      return;
    }
    if (hi2 - lo2 < MERGESIZE) {
      k.merge(s, lo1, hi1, lo2, hi2, d, lod);
      return;
    }
    int split1 = (lo1 + hi1) >>> 1, split2 = k.binSplit(s, split1, lo2, hi2);
    int lowSize = split1 - lo1 + split2 - lo2;
    k.copy(s, split1, d, lod + lowSize + 1);
    int a1 = lo1,
        b1 = split1 - 1,
        a2 = lo2,
        b2 = split2,
        c1 = split1 + 1,
        e1 = hi1,
        c2 = split2 + 1,
        e2 = hi2;
    par.all(
        () -> merge(par, s, a1, b1, a2, b2, d, lod),
        () -> merge(par, s, c1, e1, c2, e2, d, lod + lowSize + 2));
  }

  void sort(Par par, A a, A tmp, int lo, int size) {
    if (size < QUICKSIZE) {
      k.quick(a, lo, lo + size - 1);
      return;
    }
    int q = size / 4, b = lo + q, c = b + q, dd = c + q;
    par.all(
        () -> sort(par, a, tmp, lo, q),
        () -> sort(par, a, tmp, b, q),
        () -> sort(par, a, tmp, c, q),
        () -> sort(par, a, tmp, dd, size - 3 * q));
    par.all(
        () -> merge(par, a, lo, b - 1, b, c - 1, tmp, lo),
        () -> merge(par, a, c, dd - 1, dd, lo + size - 1, tmp, c));
    merge(par, tmp, lo, c - 1, c, lo + size - 1, a, lo);
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 100_000_000 : 4_000_000);
    if (n < 1) throw new IllegalArgumentException("n must be positive");
    A input = k.values(n, 1999);
    long[] histogram = k.histogram(input);
    A work = k.alloc(n), tmp = k.alloc(n);
    return new Workload() {
      @Override
      public String parameters() {
        return String.format(java.util.Locale.ROOT, "%,d %s values 0..255", n, k.type);
      }

      @Override
      public void prepare() {
        System.arraycopy(input, 0, work, 0, n);
      }

      @Override
      public Object sequential() {
        sort(SEQ, work, tmp, 0, n);
        return work;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        pool.invoke(
            Task.of(() -> {
              sort(TINE, work, tmp, 0, n);
              return null;
            }));
        return work;
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        pool.invoke(
            new RecursiveAction() {
              @Override
              protected void compute() {
                sort(JDK, work, tmp, 0, n);
              }
            });
        return work;
      }

      @Override
      @SuppressWarnings("unchecked")
      public boolean verify(Object r) {
        A a = (A) r;
        return k.sorted(a) && Arrays.equals(k.histogram(a), histogram);
      }

      @Override
      public long tasksPerRun() {
        return -1;
      }
    };
  }
}
