package dev.tine.agent.experiment;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "attach-experiment", description = "placeholder")
public final class AttachExperiment implements Callable<Integer> {
  @Override
  public Integer call() {
    return 0;
  }
}
