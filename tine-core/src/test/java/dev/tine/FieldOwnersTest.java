package dev.tine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The table "Who writes a worker's fields" in docs/design/core-runtime.md is true: for each field,
 * exactly the files it lists write it. A write is an assignment, a compound assignment, an
 * increment or decrement (of the field, of an element of an array field, or of a field of {@code
 * counters}), or a VarHandle on the field. Comments and string literals are not code.
 */
class FieldOwnersTest {
  static final String NOTE = "docs/design/core-runtime.md";
  static final String SECTION = "## 5a. Who writes a worker's fields";

  /** A row: the field ({@code Class.name}) and every file the table allows to write it. */
  record Row(String owner, String field, Set<String> files) {
    String key() {
      return owner + "." + field;
    }
  }

  @Test
  void everyWriteIsInAListedFileAndEveryListedFileWrites() throws IOException {
    List<Row> rows = table();
    Map<String, String> sources = mainSources();
    List<String> problems = new ArrayList<>();
    for (Row row : rows) {
      Set<String> writers = new TreeSet<>();
      for (Map.Entry<String, String> e : sources.entrySet()) {
        if (writes(e.getValue(), row)) {
          writers.add(e.getKey());
        }
      }
      for (String file : writers) {
        if (!row.files().contains(stem(file))) {
          problems.add(
              row.key()
                  + " is written in "
                  + file
                  + ", which the table in "
                  + NOTE
                  + " does not list for it (listed: "
                  + String.join(", ", row.files())
                  + ")");
        }
      }
      for (String listed : row.files()) {
        if (!writers.contains(listed + ".java")) {
          problems.add(
              NOTE
                  + " lists "
                  + listed
                  + ".java as a writer of "
                  + row.key()
                  + ", but "
                  + listed
                  + ".java does not write it (writers found: "
                  + String.join(", ", writers)
                  + ")");
        }
      }
    }
    if (!problems.isEmpty()) {
      fail(String.join("\n", problems));
    }
  }

  @Test
  void everyMutableFieldHasARow() throws IOException {
    Set<String> inTable = new TreeSet<>();
    for (Row r : table()) {
      inTable.add(r.key());
    }
    Set<String> mutable = new TreeSet<>();
    for (Class<?> c : new Class<?>[] {Worker.class, TaskStatus.class}) {
      for (Field f : c.getDeclaredFields()) {
        int m = f.getModifiers();
        boolean contentsChange = f.getType().isArray() || f.getName().equals("counters");
        if (!Modifier.isStatic(m) && (!Modifier.isFinal(m) || contentsChange)) {
          mutable.add(c.getSimpleName() + "." + f.getName());
        }
      }
    }
    Set<String> missing = new TreeSet<>(mutable);
    missing.removeAll(inTable);
    assertTrue(
        missing.isEmpty(), "mutable fields with no row in the table of " + NOTE + ": " + missing);
    Set<String> stale = new TreeSet<>(inTable);
    stale.removeAll(mutable);
    assertTrue(stale.isEmpty(), "rows of " + NOTE + " for fields that do not exist: " + stale);
  }

  /** The scanner itself: it finds each kind of write and ignores comments, strings, locals. */
  @Test
  void scannerRecognisesWrites() {
    Row inHand = new Row("Worker", "inHand", Set.of());
    Row pending = new Row("Worker", "pendingTasks", Set.of());
    Row counters = new Row("Worker", "counters", Set.of());
    Row sleep = new Row("Worker", "sleepState", Set.of());
    Row status = new Row("TaskStatus", "status", Set.of());
    assertTrue(writes("w.inHand = t;", inHand));
    assertTrue(writes("w . inHand=null;", inHand));
    assertTrue(writes("inHand = null;", inHand));
    assertTrue(writes("w.pendingTasks[n] = this;", pending));
    assertTrue(writes("if (r) w.counters.steals++;", counters));
    assertTrue(writes("++w.counters.steals;", counters));
    assertTrue(writes("w.counters.idleNanos += d;", counters));
    assertTrue(writes("findVarHandle(Worker.class, \"sleepState\", int.class)", sleep));
    assertTrue(writes("x.status |= 1;", status));
    assertEquals(false, writes("if (w.inHand == t) return;", inHand));
    assertEquals(false, writes("Task<?> t = w.inHand;", inHand));
    assertEquals(false, writes("// w.inHand = t;\n", inHand));
    assertEquals(false, writes("/* w.inHand = t; */", inHand));
    assertEquals(false, writes("s = \"w.inHand = t\";", inHand));
    assertEquals(false, writes("int status = 3;", status));
    assertEquals(false, writes("Task<?> inHand = null;", inHand));
  }

  // ---------------------------------------------------------------------------------------------

  static String stem(String file) {
    return file.endsWith(".java") ? file.substring(0, file.length() - 5) : file;
  }

  private static final String OP = "(?:>>>=|<<=|>>=|[-+*/%&|^]=|=(?!=)|\\+\\+|--)";

  /** True if the source text {@code src} writes the row's field. */
  static boolean writes(String src, Row row) {
    String f = Pattern.quote(row.field());
    if (Pattern.compile("findVarHandle\\(\\s*" + row.owner() + "\\.class\\s*,\\s*\"" + f + "\"")
        .matcher(strip(src, true))
        .find()) {
      return true;
    }
    String code = strip(src, false);
    String target =
        row.field().equals("counters")
            ? "\\bcounters\\s*\\.\\s*\\w+"
            : "\\b" + f + "\\b(?:\\s*\\[[^\\]]*\\])?";
    // Qualified (x.field, this.field, a.b.field) or unqualified; postfix or prefix operator.
    Matcher m = Pattern.compile("(\\.\\s*)?" + target + "\\s*" + OP).matcher(code);
    while (m.find()) {
      if (m.group(1) != null || !isDeclaration(code, m.start())) {
        return true;
      }
    }
    return Pattern.compile("(?:\\+\\+|--)\\s*(?:\\w+\\s*\\.\\s*)*" + target).matcher(code).find();
  }

  /** An unqualified name preceded by a type (a letter, a generic's '>' or an array's ']'). */
  private static boolean isDeclaration(String code, int at) {
    int i = at - 1;
    while (i >= 0 && Character.isWhitespace(code.charAt(i))) {
      i--;
    }
    if (i < 0) {
      return false;
    }
    char c = code.charAt(i);
    if (Character.isJavaIdentifierPart(c)) {
      int end = i + 1;
      while (i >= 0 && Character.isJavaIdentifierPart(code.charAt(i))) {
        i--;
      }
      String word = code.substring(i + 1, end);
      return !word.equals("return") && !word.equals("else");
    }
    return c == '>' || c == ']';
  }

  /** Source text without comments; string and character literals blanked unless kept. */
  static String strip(String src, boolean keepStrings) {
    StringBuilder out = new StringBuilder(src.length());
    int n = src.length();
    for (int i = 0; i < n; ) {
      char c = src.charAt(i);
      if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
        while (i < n && src.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
        int end = src.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (src.startsWith("\"\"\"", i)) {
        int end = src.indexOf("\"\"\"", i + 3);
        i = end < 0 ? n : end + 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && src.charAt(j) != c) {
          j += src.charAt(j) == '\\' ? 2 : 1;
        }
        out.append(c).append(keepStrings ? src.substring(i + 1, Math.min(j, n)) : "").append(c);
        i = j + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Every main source file of tine-core: its text, by its path from the package dev.tine. */
  static Map<String, String> mainSources() throws IOException {
    Path root = module().resolve("src/main/java");
    Path pkg = root.resolve("dev/tine");
    Map<String, String> out = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(x -> x.toString().endsWith(".java")).sorted().toList()) {
        // Sleep.java for the package's own files, deque/WorkDeque.java below it, full path else
        Path rel = p.startsWith(pkg) ? pkg.relativize(p) : root.relativize(p);
        out.put(rel.toString().replace('\\', '/'), Files.readString(p));
      }
    }
    return out;
  }

  static Path module() {
    for (Path p : new Path[] {Path.of(""), Path.of("tine-core")}) {
      if (Files.isDirectory(p.resolve("src/main/java/dev/tine"))) {
        return p;
      }
    }
    throw new IllegalStateException("tine-core not found from " + Path.of("").toAbsolutePath());
  }

  /** The table's rows: field, then the files of the two file columns (sites in parentheses). */
  static List<Row> table() throws IOException {
    Path note = module().toAbsolutePath().getParent().resolve(NOTE);
    List<String> lines = Files.readAllLines(note);
    int at = lines.indexOf(SECTION);
    assertTrue(at >= 0, NOTE + " has no section \"" + SECTION + "\"");
    List<Row> rows = new ArrayList<>();
    boolean inTable = false;
    for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      String line = lines.get(i).trim();
      if (!line.startsWith("|")) {
        if (inTable) {
          break;
        }
        continue;
      }
      inTable = true;
      String[] cells = line.substring(1).split("\\|", -1);
      String field = cells[0].replace("`", "").trim();
      if (field.equals("field") || field.startsWith("---")) {
        continue;
      }
      assertTrue(
          field.matches("\\w+\\.\\w+"), NOTE + ": a row's field is Class.name, got: " + field);
      Set<String> files = new LinkedHashSet<>();
      files.addAll(files(cells[2]));
      files.addAll(files(cells[3]));
      int dot = field.indexOf('.');
      rows.add(new Row(field.substring(0, dot), field.substring(dot + 1), files));
    }
    assertTrue(rows.size() >= 10, NOTE + ": expected the field table, found rows " + rows);
    return rows;
  }

  /** "`A` (sites, more), `B`" to [A, B]. */
  static List<String> files(String cell) {
    String top = cell.replace("`", "");
    for (String prev = null; !top.equals(prev); ) {
      prev = top;
      top = top.replaceAll("\\([^()]*\\)", "");
    }
    List<String> out = new ArrayList<>();
    for (String part : top.split(",")) {
      String name = part.trim();
      if (!name.isEmpty()) {
        assertTrue(name.matches("[A-Z]\\w*"), NOTE + ": not a file name in a file column: " + name);
        out.add(name);
      }
    }
    return out;
  }
}
