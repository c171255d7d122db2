package dev.tine.bench.programs;

import dev.tine.Scope;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;

/**
 * Programs that fork at every level, written with the scope-passing join ({@link Scope}) beside
 * their {@code Task} and {@code Tine.joinLong} forms: {@code fib-scope} (the JDK runs the fork/join
 * tuning study's program 2, as for {@code fib-every}) and {@code quicksort-scope} (the JDK runs the
 * fork/join tuning study's quicksort program 2, as for {@code quicksort}). Each reuses its base
 * program's workload (input, sequential and JDK versions, verification) and replaces only the Tine
 * version.
 */
public final class ScopeForms {
  private ScopeForms() {}

  static long fib(Scope s, int n) {
    return n < 2 ? n : s.joinLong(ScopeForms::fib, n - 1, ScopeForms::fib, n - 2, Long::sum);
  }

  /** fib-scope: Fibonacci joining every call with {@link Scope#joinLong}. */
  public static final class FibScope implements Program {
    @Override
    public String name() {
      return "fib-scope";
    }

    @Override
    public String rewriteOf() {
      return "fib-every";
    }

    @Override
    public String description() {
      return "Fibonacci joining every call with Scope.joinLong (JDK: the fork/join tuning study's program 2)";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      return Fib.forkEveryCall(size, o, (pool, n) -> pool.<Long>invoke(s -> fib(s, n)));
    }
  }

  /** The study's quicksort recursion (partition, then both parts) with a scope range join. */
  static void sort(Scope s, int[] a, int lo, int hi) {
    int pos = QuickSort.partition(a, lo, hi);
    if (pos > 0) {
      // The range join passes (lo, hi) pairs; the array is reached through a field of the task
      // below, so the functions stay non-capturing. One array per pool run.
      s.join(ScopeForms::sortLeft, lo, pos, ScopeForms::sortLeft, pos, hi);
    }
  }

  private static int[] array; // the array being sorted: set before, and read only during, one run

  private static void sortLeft(Scope s, int lo, int hi) {
    sort(s, array, lo, hi);
  }

  /**
   * quicksort-scope: the fork/join tuning study's quicksort, forking every partition with a scope
   * range join.
   */
  public static final class QuickSortScope implements Program {
    @Override
    public String name() {
      return "quicksort-scope";
    }

    @Override
    public String rewriteOf() {
      return "quicksort";
    }

    @Override
    public String description() {
      return "the fork/join tuning study's quicksort, every partition joined with Scope.join over index ranges";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      int n = Program.intParam(o, "n", size == Size.PAPER ? 2_000_000 : 1_000_000); // as quicksort
      if (n < 1) throw new IllegalArgumentException("n must be positive");
      int[] input = new SplittableRandom(20121203).ints(n).toArray(); // quicksort's input
      long checksum = QuickSort.checksum(input);
      int[] work = new int[n];
      return new Workload() {
        @Override
        public String parameters() {
          return "n=" + n + " ints";
        }

        @Override
        public void prepare() {
          System.arraycopy(input, 0, work, 0, n);
        }

        @Override
        public Object sequential() {
          QuickSort.sequential(work, 0, n);
          return work;
        }

        @Override
        public Object tine(WorkStealingPool pool) {
          synchronized (ScopeForms.class) { // one scope sort at a time: they share the field
            array = work;
            try {
              pool.invoke(s -> {
                sort(s, work, 0, n);
                return null;
              });
            } finally {
              array = null;
            }
          }
          return work;
        }

        @Override
        public Object jdk(ForkJoinPool pool) {
          QuickSort.jdkSort(pool, work, null);
          return work;
        }

        @Override
        public boolean verify(Object r) {
          int[] a = (int[]) r;
          for (int i = 1; i < a.length; i++) {
            if (a[i - 1] > a[i]) return false;
          }
          return QuickSort.checksum(a) == checksum;
        }
      };
    }
  }

  /**
   * Lea's Integrate recursion with closure halves (five doubles each): right + left, as everywhere.
   */
  static double area(Scope s, double l, double r, double fl, double fr, double area, double tol) {
    double h = (r - l) * 0.5, c = l + h, fc = Integrate.f(c), hh = h * 0.5;
    double al = (fl + fc) * hh, ar = (fr + fc) * hh, alr = al + ar;
    if (Math.abs(alr - area) <= tol) return alr;
    return s.joinDouble(
        t -> area(t, c, r, fc, fr, ar, tol), t -> area(t, l, c, fl, fc, al, tol), Double::sum);
  }

  /** integrate-scope: Lea's Integrate, every subdivision joined with a scope closure join. */
  public static final class IntegrateScope implements Program {
    @Override
    public String name() {
      return "integrate-scope";
    }

    @Override
    public String rewriteOf() {
      return "integrate";
    }

    @Override
    public String description() {
      return "adaptive quadrature, every subdivision joined with Scope.joinDouble (closures)";
    }

    @Override
    public Workload workload(Size size, Map<String, String> o) {
      Workload base = new Integrate().workload(size, o);
      double tol =
          Double.parseDouble(o.getOrDefault("tolerance", size == Size.PAPER ? "0.001" : "0.01"));
      double lo = -47,
          hi = 48,
          flo = Integrate.f(lo),
          fhi = Integrate.f(hi),
          a0 = (flo + fhi) * (hi - lo) * 0.5;
      return new Workload() {
        @Override
        public String parameters() {
          return base.parameters();
        }

        @Override
        public Object sequential() {
          return base.sequential();
        }

        @Override
        public Object tine(WorkStealingPool pool) {
          return pool.<Double>invoke(s -> area(s, lo, hi, flo, fhi, a0, tol));
        }

        @Override
        public Object jdk(ForkJoinPool pool) {
          return base.jdk(pool);
        }

        @Override
        public boolean verify(Object r) {
          return base.verify(r);
        }
      };
    }
  }
}
