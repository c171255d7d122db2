package dev.tine.executor.jfr;

import java.util.Set;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.SettingControl;
import jdk.jfr.SettingDefinition;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A task that waited in its pool's queue at least {@code waitThreshold} (a setting of this event,
 * default 10 ms), emitted on the pool thread that ran it, as it ends ({@code
 * ThreadRecorder.record}). Only tasks the meter timed have a wait to report (all of them unless the
 * meter samples). The JFR built-in {@code threshold} is about an event's own duration, which is
 * zero here: leave it at 0 and set {@code waitThreshold}.
 *
 * <p>Off by default (an overloaded pool would emit one per task, and there is no {@code @Throttle}
 * under release 21): {@code tine.jfc} enables it.
 *
 * <p>Public only so that the executor's package can fill it; the module does not export this
 * package.
 */
@Name(QueueWaitEvent.NAME)
@Category({"Tine", "Executor"})
@Label("Queue Wait")
@Description(
    "A task that waited in its pool's queue at least the waitThreshold setting before it ran")
@StackTrace(false)
@Enabled(false) // one event per late task: on in tine.jfc, off in recordings that do not name it
public final class QueueWaitEvent extends Event {
  public static final String NAME = "dev.tine.QueueWait";

  @Label("Pool")
  public String pool;

  @Label("Queue Wait")
  @Description("From the task's arrival to its start")
  @Timespan(Timespan.NANOSECONDS)
  public long queueWait;

  @Label("Service Time")
  @Description("From the task's start to its end")
  @Timespan(Timespan.NANOSECONDS)
  public long serviceTime;

  @Label("Failed")
  public boolean failed;

  /**
   * The {@code waitThreshold} now (the smallest of all recordings'): shorter waits are not sent.
   */
  public static long waitThresholdNanos() {
    return WaitThreshold.nanos;
  }

  @Label("Wait Threshold")
  @Description("Record tasks that waited in the queue at least this long")
  @Name("waitThreshold")
  @SettingDefinition
  boolean waitThreshold(WaitThreshold setting) {
    return queueWait >= WaitThreshold.nanos; // one control per event type: its value is static
  }

  /**
   * The {@code waitThreshold} setting: a duration such as {@code 10 ms}; with several recordings,
   * the smallest. Its value is static so that the record path can compare a wait with it before it
   * makes an event.
   */
  @Label("Wait Threshold")
  @Name("dev.tine.settings.WaitThreshold")
  static final class WaitThreshold extends SettingControl {
    static final String DEFAULT = "10 ms";
    static volatile long nanos = Durations.parse(DEFAULT);
    private String value = DEFAULT;

    @Override
    public String combine(Set<String> values) {
      String min = null;
      long minNanos = Long.MAX_VALUE;
      for (String v : values) {
        long n = Durations.parseOr(v, Long.MAX_VALUE);
        if (min == null || n < minNanos) {
          min = v;
          minNanos = n;
        }
      }
      return min != null ? min : DEFAULT;
    }

    @Override
    public void setValue(String v) {
      long n = Durations.parseOr(v, -1);
      if (n >= 0) {
        value = v;
        nanos = n;
      }
    }

    @Override
    public String getValue() {
      return value;
    }
  }
}
