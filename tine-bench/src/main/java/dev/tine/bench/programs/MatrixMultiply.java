package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.stream.IntStream;

/**
 * Lea's MM (Lea's paper §4): C += A × B by recursive quadrants, in doubles as the paper states
 * (Lea's code used float). Each level runs the four quadrant products C_ij += A_i0 B_0j in
 * parallel, then the four C_ij += A_i1 B_1j; leaves of {@link #LEAF}² are plain loops. Every
 * element of C accumulates in the same order at any thread count, so results equal the sequential
 * recursion bit for bit (checked), and a few elements are checked against a naive dot product. The
 * JDK built-in form is the loop a user would write: a parallel IntStream over the rows of C, each
 * row accumulated over k in ascending order, so it too equals the recursion bit for bit.
 */
public final class MatrixMultiply implements Program {
  static final int LEAF = 64;

  @Override
  public String name() {
    return "mm";
  }

  @Override
  public String description() {
    return "recursive quadrant matrix multiply, doubles (Lea's paper)";
  }

  /** Row-major n×n matrices; a block is (row, col, size). */
  record M(double[] a, double[] b, double[] c, int n) {}

  static void leaf(M m, int ar, int ac, int br, int bc, int cr, int cc, int s) {
    int n = m.n;
    for (int i = 0; i < s; i++) {
      int ci = (cr + i) * n + cc, ai = (ar + i) * n + ac;
      for (int k = 0; k < s; k++) {
        double x = m.a[ai + k];
        int bk = (br + k) * n + bc;
        for (int j = 0; j < s; j++) {
          m.c[ci + j] += x * m.b[bk + j];
        }
      }
    }
  }

  static void seq(M m, int ar, int ac, int br, int bc, int cr, int cc, int s) {
    if (s <= LEAF) {
      leaf(m, ar, ac, br, bc, cr, cc, s);
      return;
    }
    int h = s / 2;
    for (int phase = 0; phase < 2; phase++) {
      int k = phase * h;
      seq(m, ar, ac + k, br + k, bc, cr, cc, h);
      seq(m, ar, ac + k, br + k, bc + h, cr, cc + h, h);
      seq(m, ar + h, ac + k, br + k, bc, cr + h, cc, h);
      seq(m, ar + h, ac + k, br + k, bc + h, cr + h, cc + h, h);
    }
  }

  static final class TineMul extends Task<Void> {
    final M m;
    final int ar, ac, br, bc, cr, cc, s;

    TineMul(M m, int ar, int ac, int br, int bc, int cr, int cc, int s) {
      this.m = m;
      this.ar = ar;
      this.ac = ac;
      this.br = br;
      this.bc = bc;
      this.cr = cr;
      this.cc = cc;
      this.s = s;
    }

    @Override
    protected Void compute() {
      if (s <= LEAF) {
        leaf(m, ar, ac, br, bc, cr, cc, s);
        return null;
      }
      int h = s / 2;
      for (int phase = 0; phase < 2; phase++) {
        int k = phase * h;
        invokeAll(
            new TineMul(m, ar, ac + k, br + k, bc, cr, cc, h),
            new TineMul(m, ar, ac + k, br + k, bc + h, cr, cc + h, h),
            new TineMul(m, ar + h, ac + k, br + k, bc, cr + h, cc, h),
            new TineMul(m, ar + h, ac + k, br + k, bc + h, cr + h, cc + h, h));
      }
      return null;
    }
  }

  static final class JdkMul extends RecursiveAction {
    final M m;
    final int ar, ac, br, bc, cr, cc, s;

    JdkMul(M m, int ar, int ac, int br, int bc, int cr, int cc, int s) {
      this.m = m;
      this.ar = ar;
      this.ac = ac;
      this.br = br;
      this.bc = bc;
      this.cr = cr;
      this.cc = cc;
      this.s = s;
    }

    @Override
    protected void compute() {
      if (s <= LEAF) {
        leaf(m, ar, ac, br, bc, cr, cc, s);
        return;
      }
      int h = s / 2;
      for (int phase = 0; phase < 2; phase++) {
        int k = phase * h;
        ForkJoinTask.invokeAll(
            new JdkMul(m, ar, ac + k, br + k, bc, cr, cc, h),
            new JdkMul(m, ar, ac + k, br + k, bc + h, cr, cc + h, h),
            new JdkMul(m, ar + h, ac + k, br + k, bc, cr + h, cc, h),
            new JdkMul(m, ar + h, ac + k, br + k, bc + h, cr + h, cc + h, h));
      }
    }
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 2048 : 512);
    if (n < LEAF || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException("n must be a power of two >= " + LEAF + ", was " + n);
    }
    SplittableRandom r = new SplittableRandom(2000);
    double[] a = r.doubles((long) n * n, -1, 1).toArray(),
        b = r.doubles((long) n * n, -1, 1).toArray();
    M ref = new M(a, b, new double[n * n], n);
    seq(ref, 0, 0, 0, 0, 0, 0, n);
    double[] expect = ref.c;
    for (int[] ij :
        new int[][] {{0, 0}, {n - 1, n - 1}, {n / 3, n / 2}}) { // against a naive dot product
      double d = 0;
      for (int k = 0; k < n; k++) d += a[ij[0] * n + k] * b[k * n + ij[1]];
      if (Math.abs(d - expect[ij[0] * n + ij[1]]) > 1e-9 * n)
        throw new IllegalStateException("MM reference is wrong");
    }
    M work = new M(a, b, new double[n * n], n);
    return new Workload() {
      @Override
      public String parameters() {
        return n + "x" + n + " doubles, leaf " + LEAF;
      }

      @Override
      public void prepare() {
        Arrays.fill(work.c, 0);
      }

      @Override
      public Object sequential() {
        seq(work, 0, 0, 0, 0, 0, 0, n);
        return work.c;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        pool.invoke(new TineMul(work, 0, 0, 0, 0, 0, 0, n));
        return work.c;
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        pool.invoke(new JdkMul(work, 0, 0, 0, 0, 0, 0, n));
        return work.c;
      }

      @Override
      public String jdkBuiltinForm() {
        return "IntStream.range(0, n).parallel() over rows";
      }

      @Override
      public Object jdkBuiltin() {
        double[] a = work.a, b = work.b, c = work.c;
        IntStream.range(0, n)
            .parallel()
            .forEach(i -> { // row i of C, k ascending as in every version
              int ci = i * n;
              for (int k = 0; k < n; k++) {
                double x = a[ci + k];
                int bk = k * n;
                for (int j = 0; j < n; j++) c[ci + j] += x * b[bk + j];
              }
            });
        return c;
      }

      @Override
      public boolean verify(Object res) {
        return Arrays.equals((double[]) res, expect);
      }
    };
  }
}
