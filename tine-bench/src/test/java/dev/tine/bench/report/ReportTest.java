package dev.tine.bench.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tine.bench.Size;
import dev.tine.bench.programs.Fib;
import dev.tine.bench.run.BenchRunner;
import dev.tine.bench.run.Engine;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report: generated from a real (tiny) bench run, then opened in headless Chromium, which
 * must render the charts (SVG elements in the rendered DOM) and a screenshot that is not blank.
 * .ci/run installs Chromium when it is missing; without it the rendering test is skipped, visibly.
 */
class ReportTest {
  static String html;
  static List<Map<String, Object>> records;

  @BeforeAll
  static void run() throws Exception {
    BenchRunner r =
        new BenchRunner(
            new BenchRunner.Options(
                List.of(new Fib.Lea()),
                List.of(Engine.SEQ, Engine.TINE, Engine.JDK),
                List.of(1, 2),
                Size.QUICK,
                Map.of("fib", Map.of("n", "24")),
                1,
                2,
                false,
                null));
    records = Records.of(r.run());
    html = HtmlReport.html(records, "test report");
  }

  static double num(Object o) {
    return ((Number) o).doubleValue();
  }

  /**
   * Every ratio in the JSON carries its interval, and the interval brackets it; times are kept per
   * round.
   */
  @Test
  void recordsCarryIntervalsAndRoundTimes() {
    int withVsJdk = 0;
    for (Map<String, Object> m : records) {
      for (String k : List.of("x_seq", "speedup", "vs_jdk")) {
        Object v = m.get(k);
        if (v == null) continue;
        double lo = num(m.get(k + "_ci_low")), hi = num(m.get(k + "_ci_high"));
        assertTrue(lo <= num(v) && num(v) <= hi, k + " " + m);
        if (k.equals("vs_jdk")) withVsJdk++;
      }
      List<?> times = (List<?>) m.get("times_ms");
      assertTrue(times.size() == 2 && times.stream().allMatch(t -> num(t) > 0), "two rounds: " + m);
    }
    assertTrue(withVsJdk == 2, "tine p=1 and p=2 against the JDK: " + withVsJdk);
  }

  static int count(String s, String re) {
    Matcher m = Pattern.compile(re).matcher(s);
    int n = 0;
    while (m.find()) n++;
    return n;
  }

  @Test
  void selfContainedWithCharts() {
    assertTrue(html.startsWith("<!DOCTYPE html>"));
    assertTrue(!html.contains("<script"), "no scripts");
    assertTrue(
        !html.contains("src=\"http") && !html.contains("href=\"http"), "no external resources");
    assertTrue(count(html, "<svg class=\"chart\"") >= 4, "speedup, time, steal and GC charts");
    assertTrue(
        html.contains("id=\"speedup-0\"") && html.contains("class=\"ceiling\""),
        "speedup chart with ceiling line");
    assertTrue(count(html, "<polyline class=\"series\"") >= 2, "a Tine and a JDK speedup series");
    assertTrue(
        html.contains("<table>") && html.contains(">tine<") && html.contains(">jdk<"),
        "tables beside the charts");
  }

  /**
   * Summary first: the verdict chart, with whiskers, a line at 1.0 and the geometric mean, then the
   * machine and ceiling.
   */
  @Test
  void verdictComesFirst() {
    int verdict = html.indexOf("id=\"verdict-chart\""),
        firstProgram = html.indexOf("id=\"speedup-0\"");
    assertTrue(
        verdict > 0 && verdict < firstProgram, "the verdict precedes the per-program sections");
    String v = html.substring(verdict, html.indexOf("</svg>", verdict));
    assertTrue(v.contains("class=\"one\""), "a line at 1.0");
    assertTrue(count(v, "class=\"whisker\"") >= 2, "interval whiskers at p=1 and p=2");
    assertTrue(
        v.contains("geometric mean") && v.contains("<polygon class=\"point\""),
        "the geometric mean, as a diamond");
    assertTrue(v.contains(">1 thread<") && v.contains(">2 threads<"), "one panel per thread count");
    String head = html.substring(0, verdict);
    assertTrue(
        head.contains("cores, JDK") && head.contains("GC, heap up to"),
        "the machine under the title: " + head);
    assertTrue(head.contains("at 2 threads"), "the ceiling under the title");
  }

  /** An empty verdict list is grey: "Tine slower on none" is not news, so not red. */
  @Test
  void emptyVerdictListsAreNotColoured() {
    assertFalse(html.contains("class=\"slower\">Tine slower on none"), "none in red");
    assertFalse(html.contains("class=\"faster\">Tine faster on none"), "none in green");
    assertTrue(html.contains("Tine slower on") && html.contains("Tine faster on"));
  }

  @Test
  void axesCarryHumanNumbers() {
    // Which ticks appear depends on the measured ratios; every one must be a plain number with ×.
    assertTrue(Pattern.compile(">\\d+(\\.\\d+)?×<").matcher(html).find(), "ratio ticks in ×");
    assertFalse(Pattern.compile(">[-\\d.]+e[-+]?\\d+").matcher(html).find(), "no e-notation ticks");
    assertTrue(Pattern.compile(">\\d+(\\.\\d+)? ms<").matcher(html).find(), "time ticks in ms");
    assertTrue(
        Pattern.compile(">\\d+(\\.\\d+)? [kM]/s<").matcher(html).find(),
        "task rates as k/s or M/s");
    assertTrue(
        !Pattern.compile(">\\d\\.\\d{4,}<").matcher(html).find(), "no long raw decimals on axes");
  }

  static Path chromium() {
    for (String c :
        List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")) {
      if (Files.isExecutable(Path.of(c))) return Path.of(c);
    }
    return null;
  }

  static String[] headless(Path chrome, Path profile, String... more) {
    String[] base = {
      chrome.toString(),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--user-data-dir=" + profile
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void chromiumRendersTheCharts(@TempDir Path dir) throws Exception {
    Path chrome = chromium();
    assumeTrue(chrome != null, "Chromium not installed (.ci/run installs it)");
    Path page = dir.resolve("report.html");
    Files.writeString(page, html);
    Process p =
        new ProcessBuilder(
                headless(chrome, dir.resolve("profile1"), "--dump-dom", page.toUri().toString()))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String dom = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertTrue(count(dom, "<svg class=\"chart\"") >= 4, "charts in the rendered DOM");
    assertTrue(
        count(dom, "<polyline") >= 2 && count(dom, "<rect class=\"bar\"") >= 2,
        "series and bars rendered");

    Path png = dir.resolve("shot.png");
    Process s =
        new ProcessBuilder(
                headless(
                    chrome,
                    dir.resolve("profile2"),
                    "--screenshot=" + png,
                    "--window-size=1200,900",
                    page.toUri().toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertTrue(s.waitFor(60, TimeUnit.SECONDS));
    BufferedImage img = ImageIO.read(png.toFile());
    assertTrue(img != null && img.getWidth() > 100, "a screenshot");
    int first = img.getRGB(0, 0), differing = 0;
    for (int y = 0; y < img.getHeight(); y += 4) {
      for (int x = 0; x < img.getWidth(); x += 4) {
        if (img.getRGB(x, y) != first) differing++;
      }
    }
    assertTrue(
        differing > 500, "the screenshot is not blank: " + differing + " sampled pixels differ");
    // the first screen (1200x900) shows the verdict: its dots and whiskers in green, red or grey
    int verdictPixels = 0;
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        int rgb = img.getRGB(x, y) & 0xFFFFFF;
        if (rgb == 0x1a7f37 || rgb == 0xcf222e || rgb == 0x777777) verdictPixels++;
      }
    }
    assertTrue(
        verdictPixels > 200, "verdict points on the first screen: " + verdictPixels + " pixels");
  }
}
