package dev.tine.micrometer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

/**
 * What a test's own clock readings prove about the times a meter stamps around tasks that ran one
 * after another on one pool thread, in submission order. The meter's arrival lies between the
 * readings just before and just after {@code submit}; its start before the task's own first reading
 * and after the previous task's own last one; its end after the task's own last reading and before
 * the next task's own first one (or a reading made once the meter had recorded the last task). A
 * stall anywhere (a loaded box) only widens these bounds; it can never put a true figure outside
 * them, so no tolerance for scheduling is needed.
 */
final class SerialTaskBounds {
  /** Per task, in ms. */
  final double[] waitLo, waitHi, serviceLo, serviceHi, responseLo, responseHi;

  /**
   * @param submitBefore {@code System.nanoTime()} just before each task was submitted
   * @param submitAfter just after its submit returned
   * @param started the task's own first reading
   * @param ended the task's own last reading
   * @param done a reading made after the meter had recorded the last task
   */
  SerialTaskBounds(
      long[] submitBefore, long[] submitAfter, long[] started, long[] ended, long done) {
    int n = started.length;
    waitLo = new double[n];
    waitHi = new double[n];
    serviceLo = new double[n];
    serviceHi = new double[n];
    responseLo = new double[n];
    responseHi = new double[n];
    for (int k = 0; k < n; k++) {
      long arrivalLo = submitBefore[k], arrivalHi = Math.min(submitAfter[k], started[k]);
      long startLo = k == 0 ? arrivalLo : Math.max(arrivalLo, ended[k - 1]), startHi = started[k];
      long endLo = ended[k], endHi = k == n - 1 ? done : started[k + 1];
      waitLo[k] = Math.max(0, startLo - arrivalHi) / 1e6;
      waitHi[k] = (startHi - arrivalLo) / 1e6;
      serviceLo[k] = (endLo - startHi) / 1e6;
      serviceHi[k] = (endHi - startLo) / 1e6;
      responseLo[k] = (endLo - arrivalHi) / 1e6;
      responseHi[k] = (endHi - arrivalLo) / 1e6;
    }
  }

  static double sum(double[] v) {
    double t = 0;
    for (double x : v) t += x;
    return t;
  }

  static double mean(double[] v) {
    return sum(v) / v.length;
  }

  /** The {@code r}-th smallest (from 1): monotone in every value, so bounds carry over. */
  static double rank(double[] v, int r) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[r - 1];
  }

  /** A mean or sum the meter computes from nanosecond sums: exactly inside the bounds. */
  static void assertWithin(String what, double lo, double hi, double measured, Object s) {
    double slack = 1e-9 * Math.max(1, Math.abs(hi));
    assertTrue(
        measured >= lo - slack && measured <= hi + slack,
        what + " " + measured + " outside the test's own bounds [" + lo + ", " + hi + "]: " + s);
  }

  /**
   * A figure read from a histogram (microseconds, three significant digits): inside the bounds but
   * for the truncation to a microsecond and the histogram's resolution (under 0.1%).
   */
  static void assertWithinHistogram(String what, double lo, double hi, double measured, Object s) {
    assertWithin(what, lo * 0.998 - 0.002, hi * 1.002 + 0.002, measured, s);
  }
}
