package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.Tine;
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

/**
 * Lea's LU (Lea's paper §4): recursive block LU decomposition without pivoting, in place, blocks of
 * 16, on a seeded diagonally dominant matrix. Per level: LU(A00); then in parallel A01 := L00⁻¹·A01
 * and A10 := A10·U00⁻¹ (each a recursive solve, parallel over independent halves); A11 −= A10·A01
 * (recursive quadrant multiply-subtract, parallel by quadrants); LU(A11).
 *
 * <p>The recursion is written once over a two-way {@link Par#both}: sequential calls, {@link
 * Tine#join(Runnable, Runnable)}, or the JDK's {@code invokeAll}. The operation order per element
 * is the same in every version, so results equal the sequential one bit for bit; L·U is checked
 * against A once.
 */
public final class Lu implements Program {
  static final int BLOCK = 16;

  @Override
  public String name() {
    return "lu";
  }

  @Override
  public String description() {
    return "recursive block LU without pivoting, block 16 (Lea's paper)";
  }

  /** How two independent halves run. */
  interface Par {
    void both(Runnable a, Runnable b);
  }

  static final Par SEQ =
      (a, b) -> {
        a.run();
        b.run();
      };
  static final Par TINE = Tine::join;
  static final Par JDK = (a, b) -> ForkJoinTask.invokeAll(adapt(a), adapt(b));

  static RecursiveAction adapt(Runnable r) {
    return new RecursiveAction() {
      @Override
      protected void compute() {
        r.run();
      }
    };
  }

  static final class Mat {
    final double[] a;
    final int n;

    Mat(double[] a, int n) {
      this.a = a;
      this.n = n;
    }
  }

  // ------------------------------------------------------------------ leaves

  static void luLeaf(Mat m, int r, int s) {
    double[] a = m.a;
    int n = m.n;
    for (int k = 0; k < s; k++) {
      double piv = a[(r + k) * n + r + k];
      for (int i = k + 1; i < s; i++) {
        int ri = (r + i) * n + r;
        double l = a[ri + k] /= piv;
        int rk = (r + k) * n + r;
        for (int j = k + 1; j < s; j++) a[ri + j] -= l * a[rk + j];
      }
    }
  }

  /** X := L⁻¹·X, L unit lower triangular at (lr, lr), X at (xr, xc); both s×s. */
  static void lowerLeaf(Mat m, int lr, int xr, int xc, int s) {
    double[] a = m.a;
    int n = m.n;
    for (int i = 1; i < s; i++) {
      int xi = (xr + i) * n + xc, li = (lr + i) * n + lr;
      for (int k = 0; k < i; k++) {
        double l = a[li + k];
        int xk = (xr + k) * n + xc;
        for (int j = 0; j < s; j++) a[xi + j] -= l * a[xk + j];
      }
    }
  }

  /** X := X·U⁻¹, U upper triangular at (ur, ur), X at (xr, xc); both s×s. */
  static void upperLeaf(Mat m, int ur, int xr, int xc, int s) {
    double[] a = m.a;
    int n = m.n;
    for (int i = 0; i < s; i++) {
      int xi = (xr + i) * n + xc;
      for (int j = 0; j < s; j++) {
        double v = a[xi + j];
        for (int k = 0; k < j; k++) v -= a[xi + k] * a[(ur + k) * n + ur + j];
        a[xi + j] = v / a[(ur + j) * n + ur + j];
      }
    }
  }

  /** C −= A·B on s×s blocks at (cr, cc), (ar, ac), (br, bc). */
  static void mulSubLeaf(Mat m, int cr, int cc, int ar, int ac, int br, int bc, int s) {
    double[] a = m.a;
    int n = m.n;
    for (int i = 0; i < s; i++) {
      int ci = (cr + i) * n + cc, ai = (ar + i) * n + ac;
      for (int k = 0; k < s; k++) {
        double x = a[ai + k];
        int bk = (br + k) * n + bc;
        for (int j = 0; j < s; j++) a[ci + j] -= x * a[bk + j];
      }
    }
  }

  // ------------------------------------------------------------------ recursion

  static void mulSub(Par p, Mat m, int cr, int cc, int ar, int ac, int br, int bc, int s) {
    if (s <= BLOCK) {
      mulSubLeaf(m, cr, cc, ar, ac, br, bc, s);
      return;
    }
    int h = s / 2;
    for (int k = 0; k < s; k += h) { // two phases, each four independent quadrant updates
      int kk = k;
      p.both(
          () ->
              p.both(
                  () -> mulSub(p, m, cr, cc, ar, ac + kk, br + kk, bc, h),
                  () -> mulSub(p, m, cr, cc + h, ar, ac + kk, br + kk, bc + h, h)),
          () ->
              p.both(
                  () -> mulSub(p, m, cr + h, cc, ar + h, ac + kk, br + kk, bc, h),
                  () -> mulSub(p, m, cr + h, cc + h, ar + h, ac + kk, br + kk, bc + h, h)));
    }
  }

  /** X := L⁻¹·X: the two column halves of X are independent. */
  static void lower(Par p, Mat m, int lr, int xr, int xc, int s) {
    if (s <= BLOCK) {
      lowerLeaf(m, lr, xr, xc, s);
      return;
    }
    int h = s / 2;
    p.both(() -> lowerColumn(p, m, lr, xr, xc, h), () -> lowerColumn(p, m, lr, xr, xc + h, h));
  }

  private static void lowerColumn(Par p, Mat m, int lr, int xr, int xc, int h) {
    lower(p, m, lr, xr, xc, h); // X0 := L00⁻¹ X0
    mulSub(p, m, xr + h, xc, lr + h, lr, xr, xc, h); // X1 −= L10 X0
    lower(p, m, lr + h, xr + h, xc, h); // X1 := L11⁻¹ X1
  }

  /** X := X·U⁻¹: the two row halves of X are independent. */
  static void upper(Par p, Mat m, int ur, int xr, int xc, int s) {
    if (s <= BLOCK) {
      upperLeaf(m, ur, xr, xc, s);
      return;
    }
    int h = s / 2;
    p.both(() -> upperRow(p, m, ur, xr, xc, h), () -> upperRow(p, m, ur, xr + h, xc, h));
  }

  private static void upperRow(Par p, Mat m, int ur, int xr, int xc, int h) {
    upper(p, m, ur, xr, xc, h); // X0 := X0 U00⁻¹
    mulSub(p, m, xr, xc + h, xr, xc, ur, ur + h, h); // X1 −= X0 U01
    upper(p, m, ur + h, xr, xc + h, h); // X1 := X1 U11⁻¹
  }

  static void lu(Par p, Mat m, int r, int s) {
    if (s <= BLOCK) {
      luLeaf(m, r, s);
      return;
    }
    int h = s / 2;
    lu(p, m, r, h);
    p.both(() -> lower(p, m, r, r, r + h, h), () -> upper(p, m, r, r + h, r, h));
    mulSub(p, m, r + h, r + h, r + h, r, r, r + h, h);
    lu(p, m, r + h, h);
  }

  /** max |(L·U − A)_ij| / max |A_ij|, L unit lower and U upper packed in lu. */
  static double residual(double[] lu, double[] a, int n) {
    double worst = 0, scale = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        int kmax = Math.min(i, j);
        for (int k = 0; k < kmax; k++) s += lu[i * n + k] * lu[k * n + j];
        s += i <= j ? lu[i * n + j] : lu[i * n + j] * lu[j * n + j];
        worst = Math.max(worst, Math.abs(s - a[i * n + j]));
        scale = Math.max(scale, Math.abs(a[i * n + j]));
      }
    }
    return worst / scale;
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int n = Program.intParam(o, "n", size == Size.PAPER ? 4096 : 512);
    if (n < BLOCK || Integer.bitCount(n) != 1)
      throw new IllegalArgumentException("n must be a power of two >= " + BLOCK);
    SplittableRandom r = new SplittableRandom(4096);
    double[] input = r.doubles((long) n * n, -1, 1).toArray();
    for (int i = 0; i < n; i++) input[i * n + i] += n; // diagonally dominant: no pivoting needed
    Mat ref = new Mat(input.clone(), n);
    lu(SEQ, ref, 0, n);
    double[] expect = ref.a;
    if (n <= 1024 && residual(expect, input, n) > 1e-10)
      throw new IllegalStateException("LU reference is wrong");
    Mat work = new Mat(new double[n * n], n);
    return new Workload() {
      @Override
      public String parameters() {
        return n + "x" + n + " doubles, block " + BLOCK;
      }

      @Override
      public void prepare() {
        System.arraycopy(input, 0, work.a, 0, input.length);
      }

      @Override
      public Object sequential() {
        lu(SEQ, work, 0, n);
        return work.a;
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return pool.invoke(
            Task.of(() -> {
              lu(TINE, work, 0, n);
              return work.a;
            }));
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        pool.invoke(adapt(() -> lu(JDK, work, 0, n)));
        return work.a;
      }

      @Override
      public boolean verify(Object res) {
        return Arrays.equals((double[]) res, expect);
      }
    };
  }
}
