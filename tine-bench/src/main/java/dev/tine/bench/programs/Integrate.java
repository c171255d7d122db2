package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

/**
 * Lea's Integrate (Lea's paper §4): recursive adaptive quadrature of f(x) = Σ_{i=1..5}
 * (2i−1)·x^(2i−1) from −47 to 48: split an interval until the trapezoid estimate of its two halves
 * agrees with the whole within the tolerance. Every subdivision forks (as in Lea's code). The tree
 * is evaluated in the same order everywhere (right half + left half), so the parallel results equal
 * the sequential one bit for bit; the closed form checks the sequential one.
 */
public final class Integrate implements Program {
  @Override
  public String name() {
    return "integrate";
  }

  @Override
  public String description() {
    return "adaptive quadrature, forking every subdivision (Lea's paper)";
  }

  static double f(double x) {
    double x2 = x * x, p = x, s = 0;
    for (int i = 1; i <= 5; i++) {
      s += (2 * i - 1) * p;
      p *= x2;
    }
    return s;
  }

  /** ∫ f from a to b: Σ (2i−1)/(2i) (b^{2i} − a^{2i}). */
  static double exact(double a, double b) {
    double s = 0;
    for (int i = 1; i <= 5; i++) {
      s += (2.0 * i - 1) / (2.0 * i) * (Math.pow(b, 2 * i) - Math.pow(a, 2 * i));
    }
    return s;
  }

  static double seq(double l, double r, double fl, double fr, double area, double tol) {
    double h = (r - l) * 0.5, c = l + h, fc = f(c), hh = h * 0.5;
    double al = (fl + fc) * hh, ar = (fr + fc) * hh, alr = al + ar;
    if (Math.abs(alr - area) <= tol) return alr;
    return seq(c, r, fc, fr, ar, tol) + seq(l, c, fl, fc, al, tol);
  }

  static final class TineArea extends Task<Double> {
    final double l, r, fl, fr, area, tol;

    TineArea(double l, double r, double fl, double fr, double area, double tol) {
      this.l = l;
      this.r = r;
      this.fl = fl;
      this.fr = fr;
      this.area = area;
      this.tol = tol;
    }

    @Override
    protected Double compute() {
      double h = (r - l) * 0.5, c = l + h, fc = f(c), hh = h * 0.5;
      double al = (fl + fc) * hh, ar = (fr + fc) * hh, alr = al + ar;
      if (Math.abs(alr - area) <= tol) return alr;
      TineArea left = new TineArea(l, c, fl, fc, al, tol);
      left.fork();
      double right = new TineArea(c, r, fc, fr, ar, tol).compute();
      return right + left.join();
    }
  }

  static final class JdkArea extends RecursiveTask<Double> {
    final double l, r, fl, fr, area, tol;

    JdkArea(double l, double r, double fl, double fr, double area, double tol) {
      this.l = l;
      this.r = r;
      this.fl = fl;
      this.fr = fr;
      this.area = area;
      this.tol = tol;
    }

    @Override
    protected Double compute() {
      double h = (r - l) * 0.5, c = l + h, fc = f(c), hh = h * 0.5;
      double al = (fl + fc) * hh, ar = (fr + fc) * hh, alr = al + ar;
      if (Math.abs(alr - area) <= tol) return alr;
      JdkArea left = new JdkArea(l, c, fl, fc, al, tol);
      left.fork();
      double right = new JdkArea(c, r, fc, fr, ar, tol).compute();
      return right + left.join();
    }
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    double tol =
        Double.parseDouble(o.getOrDefault("tolerance", size == Size.PAPER ? "0.001" : "0.01"));
    if (!(tol > 0)) throw new IllegalArgumentException("tolerance must be positive");
    double lo = -47, hi = 48, flo = f(lo), fhi = f(hi), a0 = (flo + fhi) * (hi - lo) * 0.5;
    double expect = seq(lo, hi, flo, fhi, a0, tol);
    double closed = exact(lo, hi);
    if (Math.abs(expect - closed) / closed > 1e-6) {
      throw new IllegalStateException(
          "sequential quadrature " + expect + " is far from the closed form " + closed);
    }
    return new Workload() {
      @Override
      public String parameters() {
        return "[-47, 48], tolerance " + tol + ", exact " + closed;
      }

      @Override
      public Object sequential() {
        return seq(lo, hi, flo, fhi, a0, tol);
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return pool.invoke(new TineArea(lo, hi, flo, fhi, a0, tol));
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        return pool.invoke(new JdkArea(lo, hi, flo, fhi, a0, tol));
      }

      @Override
      public boolean verify(Object r) {
        return r instanceof Double d
            && Double.doubleToLongBits(d) == Double.doubleToLongBits(expect);
      }
    };
  }
}
