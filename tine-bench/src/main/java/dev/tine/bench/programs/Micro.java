package dev.tine.bench.programs;

import dev.tine.Task;
import dev.tine.WorkStealingPool;
import dev.tine.bench.Program;
import dev.tine.bench.Size;
import dev.tine.bench.Workload;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;
import java.util.stream.IntStream;

/**
 * Lea's Micro (Lea's paper §4): the "microscope" board game (Ataxx-like) on 7×7. A move copies a
 * piece to an adjacent empty square or jumps it two squares away (vacating the origin); every
 * opponent piece next to the destination flips. A player with no move passes; the game ends when
 * neither can move. Each turn picks the best move by a full negamax search to depth 4 (no
 * alpha-beta, so the value is independent of evaluation order; ties go to the first move in
 * generation order), evaluated by piece difference. Deterministic self-play from the standard
 * corner start: the sequence of moves and the final board are identical at every thread count. The
 * top {@link #PAR_LEVELS} levels of each search evaluate their moves in parallel; the JDK built-in
 * form evaluates each turn's candidate moves with a parallel IntStream (one level).
 */
public final class Micro implements Program {
  static final int N = 7, CELLS = N * N, DEPTH = 4, PAR_LEVELS = 2;

  @Override
  public String name() {
    return "micro";
  }

  @Override
  public String description() {
    return "microscope game, best move by depth-4 search, self-play (Lea's paper)";
  }

  static byte[] start() {
    byte[] b = new byte[CELLS];
    b[0] = 1;
    b[CELLS - 1] = 1;
    b[N - 1] = 2;
    b[CELLS - N] = 2;
    return b;
  }

  /**
   * Moves as from*64+to; copies carry from = 63 (any adjacent own piece), deduplicated by target.
   */
  static int moves(byte[] b, int player, int[] out) {
    int n = 0;
    boolean[] copyTo = new boolean[CELLS];
    for (int from = 0; from < CELLS; from++) {
      if (b[from] != player) continue;
      int fr = from / N, fc = from % N;
      for (int dr = -2; dr <= 2; dr++) {
        for (int dc = -2; dc <= 2; dc++) {
          int r = fr + dr, c = fc + dc;
          if ((dr == 0 && dc == 0) || r < 0 || r >= N || c < 0 || c >= N) continue;
          int to = r * N + c;
          if (b[to] != 0) continue;
          if (Math.max(Math.abs(dr), Math.abs(dc)) == 1) {
            copyTo[to] = true;
          } else {
            out[n++] = from * 64 + to;
          }
        }
      }
    }
    for (int to = 0; to < CELLS; to++) {
      if (copyTo[to]) out[n++] = 63 * 64 + to;
    }
    return n;
  }

  static byte[] apply(byte[] b, int move, int player) {
    byte[] x = b.clone();
    int from = move / 64, to = move % 64;
    if (from != 63) x[from] = 0;
    x[to] = (byte) player;
    int tr = to / N, tc = to % N, opp = 3 - player;
    for (int dr = -1; dr <= 1; dr++) {
      for (int dc = -1; dc <= 1; dc++) {
        int r = tr + dr, c = tc + dc;
        if (r >= 0 && r < N && c >= 0 && c < N && x[r * N + c] == opp) x[r * N + c] = (byte) player;
      }
    }
    return x;
  }

  static int eval(byte[] b, int player) {
    int s = 0;
    for (byte v : b) {
      if (v == player) s++;
      else if (v != 0) s--;
    }
    return s;
  }

  /** Negamax value of {@code b} for {@code player} to move, searched {@code depth} plies. */
  static int seqValue(byte[] b, int player, int depth) {
    if (depth == 0) return eval(b, player);
    int[] ms = new int[CELLS * 24];
    int n = moves(b, player, ms);
    if (n == 0) {
      int[] om = new int[CELLS * 24];
      if (moves(b, 3 - player, om) == 0) return eval(b, player); // game over
      return -seqValue(b, 3 - player, depth - 1); // pass
    }
    int best = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      best = Math.max(best, -seqValue(apply(b, ms[i], player), 3 - player, depth - 1));
    }
    return best;
  }

  /** Best move (index into the move list) and values, for the root. */
  static int pick(int[] values, int n) {
    int bi = 0;
    for (int i = 1; i < n; i++) if (values[i] > values[bi]) bi = i;
    return bi;
  }

  static final class TineValue extends Task<Integer> {
    final byte[] b;
    final int player, depth, level;

    TineValue(byte[] b, int player, int depth, int level) {
      this.b = b;
      this.player = player;
      this.depth = depth;
      this.level = level;
    }

    @Override
    protected Integer compute() {
      if (level >= PAR_LEVELS || depth == 0) return seqValue(b, player, depth);
      int[] ms = new int[CELLS * 24];
      int n = moves(b, player, ms);
      if (n == 0) return seqValue(b, player, depth);
      TineValue[] kids = new TineValue[n];
      for (int i = 0; i < n; i++)
        kids[i] = new TineValue(apply(b, ms[i], player), 3 - player, depth - 1, level + 1);
      invokeAll(kids);
      int best = Integer.MIN_VALUE;
      for (TineValue k : kids) best = Math.max(best, -k.join());
      return best;
    }
  }

  static final class JdkValue extends RecursiveTask<Integer> {
    final byte[] b;
    final int player, depth, level;

    JdkValue(byte[] b, int player, int depth, int level) {
      this.b = b;
      this.player = player;
      this.depth = depth;
      this.level = level;
    }

    @Override
    protected Integer compute() {
      if (level >= PAR_LEVELS || depth == 0) return seqValue(b, player, depth);
      int[] ms = new int[CELLS * 24];
      int n = moves(b, player, ms);
      if (n == 0) return seqValue(b, player, depth);
      JdkValue[] kids = new JdkValue[n];
      for (int i = 0; i < n; i++)
        kids[i] = new JdkValue(apply(b, ms[i], player), 3 - player, depth - 1, level + 1);
      ForkJoinTask.invokeAll(kids);
      int best = Integer.MIN_VALUE;
      for (JdkValue k : kids) best = Math.max(best, -k.join());
      return best;
    }
  }

  /**
   * How a root search evaluates a child: value of the child position for the player to move there.
   */
  interface Search {
    int value(byte[] child, int playerToMove);
  }

  /** Self-play for {@code plies}: returns the game record (moves, then the final board). */
  static String play(int plies, Search s) {
    return play(plies, s, false);
  }

  /**
   * Self-play; with {@code parallelRoot} each turn's candidate moves are evaluated by a parallel
   * IntStream, as a user of the JDK's streams would write it (the JDK built-in form).
   */
  static String play(int plies, Search s, boolean parallelRoot) {
    byte[] b = start();
    int player = 1;
    StringBuilder rec = new StringBuilder();
    int[] ms = new int[CELLS * 24];
    for (int p = 0; p < plies; p++) {
      int n = moves(b, player, ms);
      if (n == 0) {
        if (moves(b, 3 - player, new int[CELLS * 24]) == 0) break;
        rec.append("pass ");
        player = 3 - player;
        continue;
      }
      byte[] board = b;
      int mover = player;
      int[] vals;
      if (parallelRoot) {
        vals =
            IntStream.range(0, n)
                .parallel()
                .map(i -> -s.value(apply(board, ms[i], mover), 3 - mover))
                .toArray();
      } else {
        vals = new int[n];
        for (int i = 0; i < n; i++) vals[i] = -s.value(apply(b, ms[i], player), 3 - player);
      }
      int best = pick(vals, n);
      rec.append(ms[best] / 64)
          .append('>')
          .append(ms[best] % 64)
          .append('=')
          .append(vals[best])
          .append(' ');
      b = apply(b, ms[best], player);
      player = 3 - player;
    }
    return rec.append(Arrays.toString(b)).toString();
  }

  @Override
  public Workload workload(Size size, Map<String, String> o) {
    int plies = Program.intParam(o, "plies", size == Size.PAPER ? 24 : 3);
    if (plies < 1) throw new IllegalArgumentException("plies must be positive");
    String expect = play(plies, (c, pl) -> seqValue(c, pl, DEPTH - 1));
    return new Workload() {
      @Override
      public String parameters() {
        return plies + " plies of self-play, depth " + DEPTH;
      }

      @Override
      public Object sequential() {
        return play(plies, (c, pl) -> seqValue(c, pl, DEPTH - 1));
      }

      @Override
      public Object tine(WorkStealingPool pool) {
        return pool.invoke(
            Task.of(() -> play(plies, (c, pl) -> new TineValue(c, pl, DEPTH - 1, 1).invoke())));
      }

      @Override
      public Object jdk(ForkJoinPool pool) {
        return pool.invoke(
            new RecursiveTask<String>() {
              @Override
              protected String compute() {
                return play(plies, (c, pl) -> new JdkValue(c, pl, DEPTH - 1, 1).invoke());
              }
            });
      }

      @Override
      public String jdkBuiltinForm() {
        return "IntStream.range(0, moves).parallel() over each turn's moves";
      }

      @Override
      public Object jdkBuiltin() {
        return play(plies, (c, pl) -> seqValue(c, pl, DEPTH - 1), true);
      }

      @Override
      public boolean verify(Object r) {
        return expect.equals(r);
      }
    };
  }
}
