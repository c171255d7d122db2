package dev.tine.platform;

import java.util.List;
import java.util.function.Supplier;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Registers a module's Flight Recorder events once JFR initializes in this JVM, now or later, and
 * tells the module when a recording starts.
 *
 * <p>Loading the first event class of a JVM initializes JFR's metadata (about 200 ms of CPU), so a
 * module names its event classes only inside the {@code Supplier} given to {@link #install}, which
 * runs once JFR is initialized anyway. Load this class only where a missing {@code jdk.jfr} module
 * is caught (a {@link LinkageError}); its callers take and return no {@code jdk.jfr} type.
 */
public final class FlightRecorderRegistration {
  /**
   * A module's events: one periodic type and the hook that emits it, and the other types.
   *
   * @param periodic the periodic event (its {@code @Period} says how often)
   * @param emitPeriodic runs on JFR's periodic thread, emits one event per live object
   * @param others the module's other event types
   */
  public record Events(
      Class<? extends Event> periodic,
      Runnable emitPeriodic,
      List<Class<? extends Event>> others) {}

  private FlightRecorderRegistration() {}

  /**
   * Registers {@code events} once JFR has initialized, then runs {@code registered} (the module's
   * "events are ready" flag); runs {@code recordingStarted} whenever a recording starts.
   *
   * @param events the event classes and the periodic hook, asked for once JFR is up
   * @param registered run once the events are registered
   * @param recordingStarted run whenever a recording starts
   */
  public static void install(
      Supplier<Events> events, Runnable registered, Runnable recordingStarted) {
    FlightRecorder.addListener(
        new FlightRecorderListener() {
          private boolean done; // guarded by this

          @Override
          public synchronized void recorderInitialized(FlightRecorder recorder) {
            // JFR is initialized (now, or already when we registered): its metadata is loaded, so
            // registering the events costs little.
            if (done) return;
            try {
              Events e = events.get();
              FlightRecorder.addPeriodicEvent(e.periodic(), e.emitPeriodic());
              for (Class<? extends Event> c : e.others()) FlightRecorder.register(c);
              done = true;
              registered.run();
            } catch (RuntimeException | LinkageError e) {
              // Never fail JFR's initialization for our events: go without them.
            }
          }

          @Override
          public void recordingStateChanged(Recording recording) {
            if (recording.getState() == RecordingState.RUNNING) recordingStarted.run();
          }
        });
  }
}
