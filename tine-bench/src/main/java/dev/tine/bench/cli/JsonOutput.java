package dev.tine.bench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import picocli.CommandLine.Option;

/** The experiments' {@code --json [FILE]} option, and the one JSON mapper of the CLI. */
final class JsonOutput {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Option(
      names = "--json",
      paramLabel = "FILE",
      arity = "0..1",
      fallbackValue = "-",
      description = "Also write the records as JSON (to FILE, or stdout with no FILE).")
  String json;

  /** Fails (exit 2) now, before any work, if the --json file cannot be written. */
  void check(picocli.CommandLine.Model.CommandSpec spec) {
    if (json != null && !toStdout()) OutputPaths.file(spec, "--json", new File(json));
  }

  /** With {@code --json} and no file, JSON goes to stdout and the tables to stderr. */
  boolean toStdout() {
    return "-".equals(json);
  }

  /** Where the tables go: stdout, or stderr when stdout carries the JSON. */
  PrintStream tables() {
    return toStdout() ? System.err : System.out;
  }

  void write(Object value) throws IOException {
    if (json == null) return;
    if (toStdout()) {
      System.out.println(JSON.writeValueAsString(value));
    } else {
      JSON.writeValue(new File(json), value);
    }
  }
}
