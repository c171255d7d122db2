#!/usr/bin/env bash
# Runs every command of README.md as a new user would: from a fresh clone of this repository's
# HEAD, with Java 17 first on PATH and JAVA_HOME unset, one command after another in README order
# (later commands use what earlier ones wrote, such as out/ and base.json).
#
#   scripts/readme-commands.sh            quick: long commands shortened (below); slow or
#                                         networked ones skipped, each saying why
#   scripts/readme-commands.sh --full     every command as printed (the full ./mvnw verify, the
#                                         Spark downloads and cluster runs: an hour or more)
#   scripts/readme-commands.sh --list     print the commands found, and what quick mode does to each
#
# Commands are the lines of ```sh blocks (a trailing backslash joins lines) and the inline
# `./tine ...`, `./mvnw ...`, `scripts/...`, `export ...` and `"$(scripts/...` spans of the text and
# tables. Each must exit 0, or the code its README comment documents ("# exit 2"), and print no
# warning of ours: a line with "WARN" or "warning", except the bench's note that the machine is
# busy (a measurement, not a defect) and JDK lines quoted in the README. Logs and the clone stay
# in the directory printed at the end. Exit status: the number of failed commands (0: all passed).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=quick
case "${1:-}" in
  --full) mode=full ;;
  --list) mode=list ;;
  "") ;;
  *) echo "usage: scripts/readme-commands.sh [--full|--list]" >&2; exit 2 ;;
esac

# The commands, one per line, in README order, duplicates dropped.
extract() {
  awk '
    /^```sh[ \t]*$/ { block = 1; next }
    /^```/ { block = 0; next }
    block {
      line = $0
      if (cont != "") { line = cont " " line; cont = "" }
      if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); cont = line; next }
      if (line !~ /^[ \t]*$/) print line
      next
    }
    {
      rest = $0
      while (match(rest, /`(\.\/tine |\.\/mvnw |scripts\/|export |"\$\(scripts\/)[^`]*`/)) {
        print substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
      }
    }' "$1" | sed -e 's/^[ \t]*//' | grep -v '^scripts/readme-commands\.sh' |
    awk '{ key = $0; sub(/[ \t]*#.*$/, "", key) } !seen[key]++'
}

# Why quick mode skips a command, or nothing.
skip_reason() {
  local c=$1
  [ "$mode" = full ] && return
  case "$c" in
    "./mvnw verify"*) echo "the whole test suite (8-25 min on 2 vCPU); --full runs it" ;;
    *" install "*) echo "writes the artifacts into your ~/.m2; --full runs it" ;;
    *"-Psoak"*) echo "the 10^7-task soak (long); --full runs it" ;;
    *verify-under-load.sh*) echo "a busy loop on every core, and the build under it; --full runs it" ;;
    *java21-check.sh*) echo "the whole build again on Java 21; --full runs it" ;;
    *fetch-spark.sh*) echo "downloads Spark (473 MB; needs python3, pip and the network); --full runs it" ;;
    *spark-experiment.sh*|*"-Pspark-cluster"*) echo "needs Spark fetched (SPARK_HOME) and 5-10 min; --full runs it" ;;
    *"spark-submit"*) echo "needs a Spark cluster" ;;
  esac
}

# What quick mode runs instead of a long command.
quick_form() {
  local c=$1
  if [ "$mode" = full ]; then printf '%s\n' "$c"; return; fi
  case "$c" in
    "./tine bench"*--help*) ;;
    "./tine bench"*)
      if [[ "$c" == *"--repeat "* ]]; then c=$(sed -E 's/--repeat [0-9]+/--repeat 3/' <<<"$c")
      else c=$(sed -E 's/^(\.\/tine bench([^#]*[^ #])?)( *#.*)?$/\1 --repeat 3\3/' <<<"$c"); fi ;;
    "./tine experiment "*)
      [[ "$c" == *--quick* || "$c" == *--help* ]] ||
        c=$(sed -E 's/^(\.\/tine experiment [a-z-]+)/\1 --quick/' <<<"$c") ;;
  esac
  printf '%s\n' "$c"
}

if [ "$mode" = list ]; then
  mode=quick
  extract "$root/README.md" | while IFS= read -r c; do
    why=$(skip_reason "$c")
    if [ -n "$why" ]; then echo "SKIP  $c    ($why)"
    else q=$(quick_form "$c"); [ "$q" = "$c" ] && echo "RUN   $c" || echo "RUN   $q    (quick form of: $c)"; fi
  done
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tine-readme.XXXXXX")
git clone -q "$root" "$work/tine" || { echo "readme-commands: clone failed" >&2; exit 1; }
cd "$work/tine" || exit 1

java17=""
for d in "${JAVA17_HOME:-}" /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/*-17* /usr/lib/jvm/*17*; do
  if [ -n "$d" ] && [ -x "$d/bin/java" ] && "$d/bin/java" -version 2>&1 | grep -q '"17\.'; then java17=$d; break; fi
done
unset JAVA_HOME
if [ -n "$java17" ]; then
  export PATH="$java17/bin:$PATH"
  echo "java first on PATH: $(command -v java) ($(java -version 2>&1 | head -1))"
else
  echo "readme-commands: no Java 17 found (set JAVA17_HOME); PATH left as it is" >&2
fi

# A target for `tine top <pid>`: the agent's demo server (plain Executors pools, no Tine class),
# on the JDK the project finds, fed a few requests so its pool has figures.
target_pid=""
start_target() {
  [ -n "$target_pid" ] && return
  local jdk; jdk=$(scripts/find-jdk.sh)
  [ -d tine-agent/target/classes ] ||
    ./mvnw -q -B -ntp -pl tine-agent -am compile -Djcstress.skip=true >"$work/target-build.log" 2>&1
  # only the demo's own classes on its class path: a copy of the agent's classes there would
  # shadow the agent jar's (the README's rule for targets)
  mkdir -p "$work/target-classes/dev/tine/agent/demo"
  cp tine-agent/target/classes/dev/tine/agent/demo/LoopbackServer*.class \
    "$work/target-classes/dev/tine/agent/demo/"
  mkfifo "$work/target.in"
  "$jdk/bin/java" -cp "$work/target-classes" dev.tine.agent.demo.LoopbackServer fixed 2 \
    <"$work/target.in" >"$work/target.out" 2>&1 &
  exec 9>"$work/target.in" # keeps the server's stdin open until this script ends
  for _ in $(seq 1 100); do
    target_pid=$(sed -n 's/^PORT [0-9]* PID \([0-9]*\)$/\1/p' "$work/target.out" | head -1)
    [ -n "$target_pid" ] && break
    sleep 0.2
  done
  [ -n "$target_pid" ] || { echo "readme-commands: the demo target did not start" >&2; cat "$work/target.out" >&2; }
}
stop_target() {
  [ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
  exec 9>&- 2>/dev/null
}
trap stop_target EXIT

n=0 failed=0 skipped=0
summary=()
while IFS= read -r cmd; do
  n=$((n + 1))
  why=$(skip_reason "$cmd")
  if [ -n "$why" ]; then
    skipped=$((skipped + 1)); summary+=("SKIP  $cmd  ($why)"); continue
  fi
  run=$(quick_form "$cmd")
  if [[ "$run" == *"<pid>"* ]]; then
    # a live table runs until stopped: the one-table form, on the demo target, comment dropped
    start_target
    run=$(sed -E 's/[ \t]+#.*$//' <<<"$run")
    run=${run//<pid>/$target_pid}
    [[ "$run" == *--once* ]] || run="$run --once"
  fi
  expected=$(sed -nE 's/.*#.*\bexits? ([0-9]+)\b.*/\1/p' <<<"$cmd")
  expected=${expected:-0}
  log="$work/cmd-$n.log"
  echo "[$n] $run"
  start=$(date +%s)
  timeout "${README_COMMAND_TIMEOUT:-3600}" bash -c "$run" </dev/null >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  # Not ours: the bench's busy-machine note, HotSpot's line the README quotes, the JDK's warnings
  # about third-party code (JMH, Spotless, Hadoop, Netty calling sun.misc.Unsafe or native code),
  # Maven's box about HdrHistogram having no module name, and Maven's summary line of a run with a
  # skipped test (tine-core skips its long fuzz run by design; failures and errors still count).
  warnings=$(grep -E 'WARN|[Ww]arning' "$log" |
    grep -vE 'busy machine|machine was busy|Sharing is only supported for boot loader classes' |
    grep -vE '^WARNING: (A terminally deprecated method in sun\.misc\.Unsafe|sun\.misc\.Unsafe::[a-zA-Z]+ (has been called by (org\.openjdk|com\.diffplug|org\.apache|io\.netty)|will be removed)|Please consider reporting this to the maintainers of class (org\.openjdk|com\.diffplug|org\.apache|io\.netty)|A restricted method in java\.lang\.System has been called|java\.lang\.System::loadLibrary has been called by (org\.apache|io\.netty)|Use --enable-native-access=ALL-UNNAMED to avoid a warning|Restricted methods will be blocked)' |
    grep -vE '^\[WARNING\] (\*+|\* Required filename-based automodules detected: \[HdrHistogram-[0-9.]+\.jar\]\. .*)$' |
    grep -vE '^\[WARNING\] Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: [0-9]+' |
    head -5)
  if [ "$rc" != "$expected" ]; then
    failed=$((failed + 1)); summary+=("FAIL  exit $rc (expected $expected), ${secs}s: $run  [log: $log]")
    tail -5 "$log" | sed 's/^/      /'
  elif [ -n "$warnings" ]; then
    failed=$((failed + 1)); summary+=("WARN  ${secs}s: $run  [log: $log]")
    sed 's/^/      /' <<<"$warnings"
  else
    summary+=("ok    ${secs}s: $run")
  fi
done < <(extract README.md)

echo
printf '%s\n' "${summary[@]}"
echo
echo "$n commands: $((n - failed - skipped)) passed, $failed failed, $skipped skipped ($mode mode); logs and the clone in $work"
exit "$failed"
