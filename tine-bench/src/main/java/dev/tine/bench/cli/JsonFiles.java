package dev.tine.bench.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Reads the JSON files users hand to the CLI (saved runs, experiment records, snapshots), and says
 * what is wrong with one in the user's terms: missing, not JSON (where), or JSON of another shape.
 * The parser's own message names its internals (token types, Java classes), so it is never shown.
 */
final class JsonFiles {
  private JsonFiles() {}

  /**
   * The file's content as {@code type}, or a ParameterException: "{@code f} is not {@code what}"
   * when it is JSON of another shape.
   */
  static <T> T read(CommandSpec spec, File f, TypeReference<T> type, String what) {
    if (!Files.isRegularFile(f.toPath())) {
      throw Check.bad(
          spec,
          "cannot read "
              + f
              + ": "
              + (Files.isDirectory(f.toPath()) ? "it is a directory" : "no such file"));
    }
    JsonNode tree;
    try { // syntax first, whatever the shape, so that a broken file is reported as broken
      tree = JsonOutput.JSON.readTree(f);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw Check.bad(
          spec,
          f
              + " is not valid JSON"
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    } catch (IOException e) {
      throw Check.bad(spec, "cannot read " + f + ": " + e.getMessage());
    }
    if (tree == null || tree.isMissingNode())
      throw Check.bad(spec, f + " is empty: it is not " + what);
    try {
      T value = JsonOutput.JSON.convertValue(tree, type);
      if (value == null) throw Check.bad(spec, f + " is not " + what);
      return value;
    } catch (IllegalArgumentException e) {
      throw Check.bad(spec, f + " is not " + what);
    }
  }
}
