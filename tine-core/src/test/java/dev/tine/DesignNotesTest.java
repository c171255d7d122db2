package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The design notes in {@code docs/design} stay true where a machine can tell.
 *
 * <ul>
 *   <li>A number a note quotes from the code carries the constant's name beside it, as in {@code 64
 *       (`SPIN_ROUNDS`)} or {@code 1 ms (`CLAIM_PARK_NANOS`)}. The constant is found by its name in
 *       every module's main sources (not by file, so code may move), its value computed, and the
 *       two compared; a unit in the note is converted to the one the constant's name ends in
 *       ({@code _NANOS}, {@code _MICROS}, {@code _MS}, a name with {@code BYTES} for KB and MB). A
 *       {@code Duration} field with a literal default (a builder's {@code tick}) is quoted as
 *       {@code 1 s (`PoolMeterBuilder.tick`)}, always with its class and a unit; a numeric field's
 *       default as {@code 64 (`TreeJob.maxCutDepth`)}. {@code Class.NAME} picks one class where the
 *       name alone is ambiguous.
 *   <li>Each note ends with a "Checked by" section, and every class or {@code Class#method} it
 *       names in backticks exists.
 * </ul>
 */
class DesignNotesTest {

  /** Constants whose values the notes quote: each must be quoted, with its marker, somewhere. */
  private static final List<String> REQUIRED =
      List.of(
          "SPIN_ROUNDS",
          "SPIN_PAUSES",
          "YIELD_ROUNDS",
          "PENDING_MAX",
          "JOIN_SPINS",
          "JOIN_YIELDS",
          "JOIN_BLOCK_NANOS",
          "CLAIM_PARK_NANOS",
          "POLL_EVERY",
          "ROTATE_EVERY",
          "TICK_NANOS",
          "BUSY_TICK_NANOS",
          "IDLE_TICK_NANOS",
          "MAX_WORKERS",
          "QUEUE_SAMPLE",
          "tick",
          "window");

  /** A number, an optional unit, then the constant's name in backticks within parentheses. */
  private static final Pattern QUOTED =
      Pattern.compile(
          "(\\d[\\d,_]*(?:\\.\\d+)?)\\s*(ns|µs|us|ms|s|min|h|KB|MB)?\\s*\\(`((?:[A-Z][A-Za-z0-9]*\\.)?[A-Z][A-Z0-9_]+|[A-Z][A-Za-z0-9]*\\.[a-z][A-Za-z0-9]*)`\\)");

  /** A constant declaration: everything between the type and the semicolon. */
  private static final Pattern DECLARATION =
      Pattern.compile("static\\s+final\\s+(?:int|long|double|float|short|byte)\\s+([^;]+);");

  /** A top-level class's numeric field with a default, such as {@code TreeJob}'s cut depth. */
  private static final Pattern FIELD_DEFAULT =
      Pattern.compile(
          "(?m)^  (?:private |protected |public )?(?:int|long|double) ([a-z][A-Za-z0-9]*) = ([^;]+);");

  /** A duration field with a literal default, such as a builder's {@code tick}. */
  private static final Pattern DURATION =
      Pattern.compile(
          "\\bDuration\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*Duration\\.of(Nanos|Millis|Seconds|Minutes|Hours)"
              + "\\(\\s*([\\d_]+)[Ll]?\\s*\\)");

  private static final Pattern NAME_IN_CHECKED_BY =
      Pattern.compile(
          "`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)?)(?:#([a-z_][A-Za-z0-9_]*))?`");

  private static final Path ROOT = repositoryRoot();

  /**
   * A constant as declared: {@code className} is the class it is declared in (a nested one if so),
   * {@code fileClass} the file's; a duration's value is in nanoseconds.
   */
  record Constant(
      String name, String className, String fileClass, Path file, double value, boolean duration) {
    boolean in(String qualifier) {
      return qualifier == null || className.equals(qualifier) || fileClass.equals(qualifier);
    }
  }

  record Quote(Path note, int line, String text, double value, String unit, String name) {}

  @Test
  void everyConstantANoteQuotesHasTheValueInTheCode() {
    Map<String, List<Constant>> constants = constants();
    List<Quote> quotes = quotes();
    assertFalse(quotes.isEmpty(), "no marked constant found in " + ROOT.resolve("docs/design"));
    List<String> wrong = new ArrayList<>();
    for (Quote q : quotes) {
      String simple = q.name.substring(q.name.lastIndexOf('.') + 1);
      String qualifier = q.name.contains(".") ? q.name.substring(0, q.name.indexOf('.')) : null;
      List<Constant> found =
          constants.getOrDefault(simple, List.of()).stream().filter(c -> c.in(qualifier)).toList();
      String where = ROOT.relativize(q.note) + ":" + q.line + " \"" + q.text + "\"";
      if (found.isEmpty()) {
        wrong.add(where + ": no constant " + q.name + " in any module's main sources");
        continue;
      }
      Set<Double> values = new TreeSet<>();
      found.forEach(c -> values.add(c.value));
      if (values.size() > 1) {
        wrong.add(
            where + ": " + q.name + " has several values " + found + "; qualify it (Class.NAME)");
        continue;
      }
      double code = values.iterator().next();
      boolean duration = found.get(0).duration;
      if (duration && q.unit == null) {
        wrong.add(where + ": " + q.name + " is a duration; give the note's unit");
        continue;
      }
      double quoted = inUnitOf(q.value, q.unit, duration ? "DURATION_NANOS" : simple);
      if (Math.abs(quoted - code) > 1e-9 * Math.max(1, Math.abs(code))) {
        wrong.add(
            where
                + ": the note says "
                + format(quoted)
                + (duration ? " ns" : "")
                + ", the code ("
                + ROOT.relativize(found.get(0).file)
                + ") says "
                + format(code)
                + (duration ? " ns" : ""));
      }
    }
    assertTrue(
        wrong.isEmpty(),
        "design notes that quote a constant wrongly:\n" + String.join("\n", wrong));
  }

  @Test
  void theConstantsTheNotesDependOnAreQuotedWithTheirMarker() {
    Set<String> quoted = new TreeSet<>();
    for (Quote q : quotes()) {
      quoted.add(q.name.substring(q.name.lastIndexOf('.') + 1));
    }
    List<String> missing = REQUIRED.stream().filter(n -> !quoted.contains(n)).toList();
    assertTrue(missing.isEmpty(), "no design note quotes these with their marker: " + missing);
  }

  @Test
  void everyNoteEndsWithACheckedByListOfTestsThatExist() throws IOException {
    List<Path> sources = javaFiles(false);
    List<String> wrong = new ArrayList<>();
    for (Path note : notes()) {
      List<String> lines = Files.readAllLines(note);
      int last = -1;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).startsWith("## ")) {
          last = i;
        }
      }
      String name = ROOT.relativize(note).toString();
      if (last < 0 || !lines.get(last).trim().equals("## Checked by")) {
        wrong.add(name + ": the last section is not \"## Checked by\"");
        continue;
      }
      int named = 0;
      for (int i = last + 1; i < lines.size(); i++) {
        Matcher m = NAME_IN_CHECKED_BY.matcher(lines.get(i));
        while (m.find()) {
          named++;
          String problem = resolve(m.group(1), m.group(2), sources);
          if (problem != null) {
            wrong.add(name + ":" + (i + 1) + ": " + problem);
          }
        }
      }
      if (named == 0) {
        wrong.add(name + ": its \"Checked by\" list names no test");
      }
    }
    assertTrue(wrong.isEmpty(), "design notes' \"Checked by\" lists:\n" + String.join("\n", wrong));
  }

  /** A link from a note (or the README) into the repository names a file that exists. */
  @Test
  void everyLinkToTheRepositoryResolves() throws IOException {
    List<Path> docs = new ArrayList<>(notes());
    docs.add(ROOT.resolve("README.md"));
    Path references = ROOT.resolve("docs/references.md");
    if (Files.exists(references)) {
      docs.add(references);
    }
    Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = link.matcher(lines.get(i));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*") || target.startsWith("#")) {
            continue; // a web address or an anchor in the same page
          }
          int hash = target.indexOf('#');
          Path file =
              doc.getParent().resolve(hash < 0 ? target : target.substring(0, hash)).normalize();
          checked++;
          if (!Files.exists(file)) {
            broken.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + target);
          }
        }
      }
    }
    assertTrue(checked > 0, "no link into the repository found");
    assertTrue(broken.isEmpty(), "links to files that do not exist:\n" + String.join("\n", broken));
  }

  /**
   * A source file a note names ({@code `dev/tine/Sleep.java`}, {@code `Jobs.java`}) exists, so a
   * layout table cannot outlive a file that moved or split. The one example of a file to write
   * (bench.md's "add a program") is not looked for.
   */
  @Test
  void everySourceFileANoteNamesExists() throws IOException {
    Set<String> examples = Set.of("programs/MyProgram.java");
    List<String> sources =
        javaFiles(false).stream()
            .map(p -> ROOT.relativize(p).toString().replace('\\', '/'))
            .toList();
    Pattern file = Pattern.compile("`([A-Za-z0-9_/.-]+\\.java)`");
    List<String> missing = new ArrayList<>();
    int named = 0;
    for (Path note : notes()) {
      List<String> lines = Files.readAllLines(note);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = file.matcher(lines.get(i));
        while (m.find()) {
          String name = m.group(1);
          if (examples.contains(name)) continue;
          named++;
          if (sources.stream().noneMatch(s -> s.endsWith("/" + name))) {
            missing.add(ROOT.relativize(note) + ":" + (i + 1) + ": " + name);
          }
        }
      }
    }
    assertTrue(named > 0, "no source file named in the notes");
    assertTrue(
        missing.isEmpty(),
        "files the notes name that do not exist:\n" + String.join("\n", missing));
  }

  /**
   * latent-forks.md's claim about who calls into {@code LatentJoins} (a claim no constant carries):
   * the classes it names are exactly the main classes whose code, comments left out, calls a {@code
   * LatentJoins} method; and {@code promoteAll}, the one way back in from a join that waits, runs
   * and waits for nothing (no join, run, invoke or park in its body or {@code promoteOldest}'s).
   */
  @Test
  void theClassesThatCallLatentJoinsAreTheOnesTheNoteNames() throws IOException {
    String note = read(ROOT.resolve("docs/design/latent-forks.md")).replaceAll("\\s+", " ");
    Matcher claim =
        Pattern.compile("The classes that call into `LatentJoins` are (.+?) \\(`DesignNotesTest")
            .matcher(note);
    assertTrue(claim.find(), "latent-forks.md no longer lists the classes that call LatentJoins");
    Set<String> named = new TreeSet<>();
    Matcher n = Pattern.compile("`([A-Z][A-Za-z0-9]*)`").matcher(claim.group(1));
    while (n.find()) named.add(n.group(1));
    Set<String> calling = new TreeSet<>();
    Pattern call = Pattern.compile("\\bLatentJoins\\.[a-z][A-Za-z0-9]*\\s*\\(");
    for (Path f : javaFiles(true)) {
      String rel = ROOT.relativize(f).toString().replace('\\', '/');
      if (!rel.startsWith("tine-core/") || rel.endsWith("/LatentJoins.java")) continue;
      if (call.matcher(withoutComments(read(f))).find()) {
        String file = f.getFileName().toString();
        calling.add(file.substring(0, file.length() - ".java".length()));
      }
    }
    assertEquals(calling, named, "latent-forks.md names the callers of LatentJoins wrongly");
    String joins =
        withoutComments(read(ROOT.resolve("tine-core/src/main/java/dev/tine/LatentJoins.java")));
    for (String method : List.of("promoteAll", "promoteOldest")) {
      String body = methodBody(joins, "static \\w+ " + method + "\\(");
      Matcher waits =
          Pattern.compile("\\b(join\\w*|doExec|run|invoke\\w*|park\\w*|await\\w*)\\s*\\(")
              .matcher(body);
      assertFalse(
          waits.find(),
          "LatentJoins."
              + method
              + " now calls "
              + (waits.hitEnd() ? "" : waits.group(1))
              + ": latent-forks.md says it runs and waits for nothing");
    }
  }

  /** Java source with its comments removed (strings are left as they are). */
  private static String withoutComments(String java) {
    return java.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
  }

  /** The body, braces included, of the first method whose header matches {@code header}. */
  private static String methodBody(String java, String header) {
    Matcher m = Pattern.compile(header).matcher(java);
    assertTrue(m.find(), "no method " + header);
    int open = java.indexOf('{', m.end()), depth = 0;
    for (int i = open; i < java.length(); i++) {
      char c = java.charAt(i);
      if (c == '{') depth++;
      else if (c == '}' && --depth == 0) return java.substring(open, i + 1);
    }
    throw new AssertionError("unbalanced braces after " + header);
  }

  /** The marker pattern itself: the forms the notes use are read, with their units. */
  @Test
  void markersAreReadWithTheirUnits() {
    Matcher m =
        QUOTED.matcher("spins 65,536 (`ROTATE_EVERY`) and parks 1 ms (`Sleep.CLAIM_PARK_NANOS`)");
    assertTrue(m.find());
    assertEquals("65,536", m.group(1));
    assertEquals("ROTATE_EVERY", m.group(3));
    assertTrue(m.find());
    assertEquals("ms", m.group(2));
    assertEquals("Sleep.CLAIM_PARK_NANOS", m.group(3));
    assertEquals(1_000_000.0, inUnitOf(1, "ms", "CLAIM_PARK_NANOS"));
    m = QUOTED.matcher("a tick (default 1 s (`PoolMeterBuilder.tick`))");
    assertTrue(m.find());
    assertEquals("s", m.group(2));
    assertEquals("PoolMeterBuilder.tick", m.group(3));
    assertEquals(65536.0, evaluate("1 << 16", Map.of()));
    assertEquals(1_000_000.0, evaluate("1_000_000L", Map.of()));
    assertEquals(4.0 * 1024 * 1024, evaluate("4L * 1024 * 1024", Map.of()));
    assertEquals(273.0, evaluate("1 + (MAX - MIN) * 8", Map.of("MAX", 42.0, "MIN", 8.0)));
  }

  // ---------------------------------------------------------------------------------------------

  private static String resolve(String className, String method, List<Path> sources) {
    String outer =
        className.contains(".") ? className.substring(0, className.indexOf('.')) : className;
    String inner = className.contains(".") ? className.substring(className.indexOf('.') + 1) : null;
    List<Path> files =
        sources.stream().filter(p -> p.getFileName().toString().equals(outer + ".java")).toList();
    if (files.isEmpty()) {
      return "no class " + outer + " in any module's sources";
    }
    for (Path f : files) {
      String text = read(f);
      if (inner != null
          && !Pattern.compile("(class|record|interface|enum)\\s+" + inner + "\\b")
              .matcher(text)
              .find()) {
        continue;
      }
      if (method == null || Pattern.compile("\\b" + method + "\\s*\\(").matcher(text).find()) {
        return null;
      }
    }
    return method == null ? "no class " + className : "no method " + method + " in " + className;
  }

  private static List<Quote> quotes() {
    List<Quote> out = new ArrayList<>();
    List<Path> docs = new ArrayList<>(notes());
    docs.add(ROOT.resolve("README.md"));
    for (Path note : docs) {
      String text = read(note); // whole, so a marker wrapped onto the next line is still read
      Matcher m = QUOTED.matcher(text);
      while (m.find()) {
        double v = Double.parseDouble(m.group(1).replace(",", "").replace("_", ""));
        int line = 1 + (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
        String quoted = m.group().replaceAll("\\s+", " ");
        out.add(new Quote(note, line, quoted, v, m.group(2), m.group(3)));
      }
    }
    return out;
  }

  /** Every design note: {@code docs/design/*.md} and a module's own {@code DESIGN.md}. */
  private static List<Path> notes() {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(ROOT.resolve("docs/design"));
        Stream<Path> modules = Files.list(ROOT)) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
      modules
          .map(m -> m.resolve("DESIGN.md"))
          .filter(Files::isRegularFile)
          .sorted()
          .forEach(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The module notes are read too: tine-agent's is one of them. */
  @Test
  void everyModulesDesignNoteIsRead() {
    assertTrue(
        notes().contains(ROOT.resolve("tine-agent/DESIGN.md")),
        "tine-agent/DESIGN.md is not among the notes read: " + notes());
  }

  /** Every constant declared in a module's main sources, by simple name. */
  private static Map<String, List<Constant>> constants() {
    Map<String, List<Constant>> out = new LinkedHashMap<>();
    for (Path f : javaFiles(true)) {
      String text = read(f);
      String className = f.getFileName().toString().replace(".java", "");
      Map<String, String> raw = new LinkedHashMap<>();
      Matcher d = DECLARATION.matcher(text);
      while (d.find()) {
        for (String part : splitTopLevel(d.group(1))) {
          int eq = part.indexOf('=');
          if (eq > 0) {
            raw.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
          }
        }
      }
      Map<String, Double> values = new LinkedHashMap<>();
      for (int pass = 0; pass < 4; pass++) { // constants defined in terms of earlier ones
        for (Map.Entry<String, String> e : raw.entrySet()) {
          if (!values.containsKey(e.getKey())) {
            try {
              values.put(e.getKey(), evaluate(e.getValue(), values));
            } catch (IllegalArgumentException notANumber) {
              // a method call, a field of another class: not a constant a note can quote
            }
          }
        }
      }
      values.forEach((name, v) ->
          out.computeIfAbsent(name, k -> new ArrayList<>())
              .add(new Constant(name, classOf(text, name, className), className, f, v, false)));
      Matcher fd = FIELD_DEFAULT.matcher(text);
      while (fd.find()) {
        try {
          double v = evaluate(fd.group(2), values);
          out.computeIfAbsent(fd.group(1), k -> new ArrayList<>())
              .add(new Constant(fd.group(1), className, className, f, v, false));
        } catch (IllegalArgumentException notANumber) {
          // computed at construction: not a default a note can quote
        }
      }
      Matcher du = DURATION.matcher(text);
      while (du.find()) {
        double n = Double.parseDouble(du.group(3).replace("_", ""));
        double ns =
            n
                * switch (du.group(2)) {
                  case "Nanos" -> 1;
                  case "Millis" -> 1e6;
                  case "Seconds" -> 1e9;
                  case "Minutes" -> 60e9;
                  default -> 3600e9;
                };
        String name = du.group(1);
        out.computeIfAbsent(name, k -> new ArrayList<>())
            .add(new Constant(name, classAt(text, du.start(), className), className, f, ns, true));
      }
    }
    return out;
  }

  /** The innermost class declared before the constant (for nested classes), else the file's. */
  private static String classOf(String text, String name, String fileClass) {
    Matcher decl = Pattern.compile("\\b" + name + "\\s*=").matcher(text);
    return decl.find() ? classAt(text, decl.start(), fileClass) : fileClass;
  }

  /** The innermost class declared before {@code position} (nested classes come after fields). */
  private static String classAt(String text, int position, String fileClass) {
    Matcher c =
        Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z][A-Za-z0-9]*)")
            .matcher(text.substring(0, position));
    String last = fileClass;
    while (c.find()) {
      last = c.group(1);
    }
    return last;
  }

  private static List<String> splitTopLevel(String s) {
    List<String> parts = new ArrayList<>();
    int depth = 0, start = 0;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '(') depth++;
      else if (ch == ')') depth--;
      else if (ch == ',' && depth == 0) {
        parts.add(s.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(s.substring(start));
    return parts;
  }

  /** Converts a quoted value to the unit the constant's name ends in. */
  static double inUnitOf(double value, String unit, String constant) {
    if (unit == null) {
      return value;
    }
    double base =
        switch (unit) {
          case "ns" -> value;
          case "µs", "us" -> value * 1e3;
          case "ms" -> value * 1e6;
          case "s" -> value * 1e9;
          case "min" -> value * 60e9;
          case "h" -> value * 3600e9;
          case "KB" -> value * 1024;
          case "MB" -> value * 1024 * 1024;
          default -> throw new IllegalArgumentException(unit);
        };
    if (unit.endsWith("B")) return constant.contains("BYTES") ? base : value; // bytes, binary units
    if (constant.endsWith("_NANOS")) return base;
    if (constant.endsWith("_MICROS")) return base / 1e3;
    if (constant.endsWith("_MS") || constant.endsWith("_MILLIS")) return base / 1e6;
    if (constant.endsWith("_SECONDS")) return base / 1e9;
    return value;
  }

  /** Literals, names of constants already known, + - * / << and parentheses. */
  static double evaluate(String expr, Map<String, Double> known) {
    return new Expression(expr, known).parse();
  }

  private static final class Expression {
    private final String s;
    private final Map<String, Double> known;
    private int i;

    Expression(String s, Map<String, Double> known) {
      this.s = s;
      this.known = known;
    }

    double parse() {
      double v = shift();
      skip();
      if (i != s.length()) throw new IllegalArgumentException(s);
      return v;
    }

    private double shift() {
      double v = sum();
      while (eat("<<")) v = (double) ((long) v << (long) sum());
      return v;
    }

    private double sum() {
      double v = product();
      while (true) {
        if (eat("+")) v += product();
        else if (eat("-")) v -= product();
        else return v;
      }
    }

    private double product() {
      double v = atom();
      while (true) {
        if (eat("*")) v *= atom();
        else if (eat("/")) v /= atom();
        else return v;
      }
    }

    private double atom() {
      skip();
      if (eat("(")) {
        double v = shift();
        if (!eat(")")) throw new IllegalArgumentException(s);
        return v;
      }
      if (eat("-")) return -atom();
      int start = i;
      while (i < s.length()
          && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '.')) {
        i++;
      }
      String token = s.substring(start, i);
      if (token.isEmpty()) throw new IllegalArgumentException(s);
      if (Character.isDigit(token.charAt(0))) {
        String t = token.replace("_", "");
        return t.startsWith("0x") || t.startsWith("0X")
            ? Long.parseLong(t.substring(2).replaceAll("[Ll]$", ""), 16)
            : Double.parseDouble(t.replaceAll("[LlDdFf]$", ""));
      }
      Double v = known.get(token);
      if (v == null) throw new IllegalArgumentException(token);
      return v;
    }

    private boolean eat(String token) {
      skip();
      if (s.startsWith(token, i)) {
        i += token.length();
        return true;
      }
      return false;
    }

    private void skip() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }
  }

  private static String format(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }

  /** Java files of every module: main sources only, or main and test sources. */
  private static List<Path> javaFiles(boolean mainOnly) {
    try (Stream<Path> modules = Files.list(ROOT)) {
      return modules
          .filter(m -> Files.isDirectory(m.resolve("src")))
          .flatMap(m -> walk(m.resolve("src")))
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> {
            String rel = ROOT.relativize(p).toString().replace('\\', '/');
            if (rel.contains("/target/") || rel.startsWith(".")) return false;
            return rel.contains("/src/main/java/")
                || (!mainOnly && rel.contains("/src/test/java/"));
          })
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Stream<Path> walk(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path repositoryRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("docs/design"))) {
      p = p.getParent();
    }
    if (p == null) {
      fail("no docs/design above " + Path.of("").toAbsolutePath());
    }
    return p;
  }
}
