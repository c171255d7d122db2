package dev.tine.spark.programs;

import dev.tine.Scope;
import dev.tine.spark.Divisible;
import java.util.List;

/**
 * Fibonacci by the doubly recursive definition, forking at every level below the cut (Lea's paper's
 * first example): a balanced tree whose part sizes are known, fib(n) ≈ φ^n, so the driver splits
 * the largest part first and the pieces come out nearly equal.
 */
public class Fib implements Divisible<Integer, Long> {
  private static final long serialVersionUID = 1L;
  private static final double PHI = (1 + Math.sqrt(5)) / 2;

  /** The problem; its instances are interchangeable, the number n is the root given to the job. */
  public Fib() {}

  @Override
  public List<Integer> split(Integer n) {
    return n < 2 ? List.of() : List.of(n - 1, n - 2);
  }

  @Override
  public Long solve(Scope scope, Integer n) {
    return fib(scope, n);
  }

  @Override
  public Long combine(Integer n, List<Long> parts) {
    return parts.get(0) + parts.get(1);
  }

  @Override
  public double weight(Integer n) {
    return Math.pow(PHI, n);
  }

  /**
   * The local program: the same recursion, every level a scope join.
   *
   * @param s the scope of the worker that runs this call
   * @param n which Fibonacci number, fib(0) = 0, fib(1) = 1
   * @return fib(n)
   */
  public static long fib(Scope s, int n) {
    return n < 2 ? n : s.joinLong(Fib::fib, n - 1, Fib::fib, n - 2, Long::sum);
  }

  /**
   * fib(n) by iteration: the ground truth.
   *
   * @param n which Fibonacci number, fib(0) = 0, fib(1) = 1
   * @return fib(n), exact up to n = 92
   */
  public static long exact(int n) {
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
      long t = a + b;
      a = b;
      b = t;
    }
    return a;
  }

  @Override
  public String toString() {
    return "fib";
  }
}
