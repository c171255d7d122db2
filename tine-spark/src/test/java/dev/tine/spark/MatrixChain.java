package dev.tine.spark;

import dev.tine.Scope;
import java.io.Serializable;
import java.util.List;

/**
 * The product of a chain of 2×2 matrices modulo a prime: a combine that is associative but not
 * commutative, so a result folded in any other order than the split's is wrong. Splits at a third,
 * so the parts weigh differently and the pieces ship in another order than the tree's.
 */
final class MatrixChain implements Divisible<MatrixChain.Range, MatrixChain.Mat> {
  private static final long serialVersionUID = 1L;
  static final long M = 1_000_000_007L;

  record Range(int lo, int hi) implements Serializable {}

  record Mat(long a, long b, long c, long d) implements Serializable {
    Mat times(Mat o) {
      return new Mat(
          (a * o.a + b * o.c) % M,
          (a * o.b + b * o.d) % M,
          (c * o.a + d * o.c) % M,
          (c * o.b + d * o.d) % M);
    }

    static final Mat ONE = new Mat(1, 0, 0, 1);
  }

  static Mat at(int i) {
    return new Mat(i % 7 + 1, i % 5, i % 3, (i * 31L + 1) % M);
  }

  static Mat sequential(int lo, int hi) {
    Mat m = Mat.ONE;
    for (int i = lo; i < hi; i++) m = m.times(at(i));
    return m;
  }

  @Override
  public List<Range> split(Range r) {
    if (r.hi - r.lo < 2) return List.of();
    int m = r.lo + Math.max(1, (r.hi - r.lo) / 3);
    return List.of(new Range(r.lo, m), new Range(m, r.hi));
  }

  @Override
  public Mat solve(Scope scope, Range r) {
    return product(scope, r.lo, r.hi);
  }

  static Mat product(Scope s, int lo, int hi) {
    if (hi - lo <= 64) return sequential(lo, hi);
    int mid = (lo + hi) >>> 1;
    return s.join(x -> product(x, lo, mid), x -> product(x, mid, hi), Mat::times);
  }

  @Override
  public Mat combine(Range r, List<Mat> parts) {
    return parts.get(0).times(parts.get(1));
  }

  @Override
  public double weight(Range r) {
    return r.hi - r.lo;
  }
}
