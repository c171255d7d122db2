package dev.tine.executor;

/**
 * The finite-source queue (M/M/c with N sources, the machine-repairman model): N clients, each of
 * which thinks for an exponential time of mean Z after its reply and then sends one request; c
 * servers with exponential service of mean S. A closed population never has more than N requests
 * present, so it never queues as an open Poisson stream of the same rate does (M/M/c, {@link
 * PoolSizeAdvisor#erlangC}). Times are in the unit of S.
 */
public final class FiniteSourceQueue {
  private FiniteSourceQueue() {}

  /**
   * What an arriving request finds in a finite-source queue (N sources that think for Z on average
   * between a reply and their next request, c servers, mean service S, both exponential): by the
   * arrival theorem, the equilibrium of the same queue with N − 1 sources. Index k: tasks present.
   */
  private static double[] arrivalView(int n, int c, double serviceMs, double thinkMs) {
    int m = n - 1; // the others
    double[] q = new double[m + 1];
    if (thinkMs <= 0) {
      q[m] = 1; // no think time: every other client is always in the pool
      return q;
    }
    double[] logPi = new double[m + 1];
    double max = 0;
    for (int k = 0; k < m; k++) {
      // birth (m − k)/Z, death min(k + 1, c)/S
      logPi[k + 1] =
          logPi[k] + Math.log((m - k) * serviceMs) - Math.log(thinkMs * Math.min(k + 1, c));
      max = Math.max(max, logPi[k + 1]);
    }
    double sum = 0;
    for (int k = 0; k <= m; k++) sum += q[k] = Math.exp(logPi[k] - max);
    for (int k = 0; k <= m; k++) q[k] /= sum;
    return q;
  }

  /**
   * The probability that a request waits, .
   *
   * @param n sources (clients)
   * @param c servers (threads)
   * @param serviceMs mean service time S
   * @param thinkMs mean think time Z between a reply and the next request
   * @return P(wait)
   */
  public static double waitProbability(int n, int c, double serviceMs, double thinkMs) {
    double[] q = arrivalView(n, c, serviceMs, thinkMs);
    double pw = 0;
    for (int k = c; k < q.length; k++) pw += q[k];
    return pw;
  }

  /**
   * The mean queueing wait: a request that finds k ≥ c tasks present waits for k − c + 1
   * completions at rate c/S.
   *
   * @param n sources (clients)
   * @param c servers (threads)
   * @param serviceMs mean service time S
   * @param thinkMs mean think time Z between a reply and the next request
   * @return E[Wq], in the unit of {@code serviceMs}
   */
  public static double meanWait(int n, int c, double serviceMs, double thinkMs) {
    double[] q = arrivalView(n, c, serviceMs, thinkMs);
    double w = 0;
    for (int k = c; k < q.length; k++) w += q[k] * (k - c + 1) * serviceMs / c;
    return w;
  }

  /**
   * The p-th percentile (0..1) of the queueing wait in a finite-source queue: the wait of a request
   * that finds k ≥ c present is Erlang(k − c + 1, c/S), mixed over what arrivals find.
   *
   * @param n sources (clients)
   * @param c servers (threads)
   * @param serviceMs mean service time S
   * @param thinkMs mean think time Z between a reply and the next request
   * @param p the percentile as a fraction, e.g. 0.9
   * @return the wait percentile in the unit of {@code serviceMs}
   */
  public static double waitPercentile(int n, int c, double serviceMs, double thinkMs, double p) {
    double[] q = arrivalView(n, c, serviceMs, thinkMs);
    double pw = 0;
    for (int k = c; k < q.length; k++) pw += q[k];
    if (pw <= 1 - p) return 0;
    double mu = c / serviceMs, lo = 0, hi = serviceMs / c;
    while (tail(q, c, mu, hi) > 1 - p) hi *= 2;
    for (int i = 0; i < 60; i++) {
      double mid = (lo + hi) / 2;
      if (tail(q, c, mu, mid) > 1 - p) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /**
   * P(Wq > t): Σ over k ≥ c of q_k · P(Erlang(k − c + 1, μ) > t), the Erlang tails summed in turn.
   */
  private static double tail(double[] q, int c, double mu, double t) {
    double x = mu * t, logX = Math.log(x), logTerm = -x, erlangTail = 0, tail = 0;
    for (int k = c, i = 0; k < q.length; k++, i++) {
      // P(Erlang(i + 1) > t) = Σ_{j ≤ i} e^{-x} x^j / j!, each term in logs (e^{-x} underflows)
      erlangTail += Math.exp(logTerm);
      logTerm += logX - Math.log(i + 1);
      tail += q[k] * Math.min(1, erlangTail);
    }
    return tail;
  }
}
