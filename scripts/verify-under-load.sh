#!/usr/bin/env bash
# Runs the README's test command (./mvnw -B -ntp verify) with a busy loop on every core, so that
# tests which only pass on a quiet machine fail here rather than in CI or on a user's laptop.
# Run it before submitting a change. Arguments go to Maven, e.g.
#   scripts/verify-under-load.sh                         # the whole build
#   scripts/verify-under-load.sh -pl tine-core -Dtest=X  # a subset while iterating
# HOGS=n sets the number of busy loops (default: one per core, nproc). Beside them a second JVM
# starts and stops over and over (each runs about a second of work, as a CLI or a test fork does),
# since the agent's attach and JMX tests meet exactly that on a developer's machine; CHURN=0 turns
# it off.
#
# The loops end whatever happens: on exit, Ctrl-C or TERM the trap kills them, and each loop also
# checks every few thousand iterations that this script is still alive, so even a SIGKILL of the
# script leaves nothing spinning for more than a moment.
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA_HOME=$(scripts/find-jdk.sh)
export JAVA_HOME

hogs=${HOGS:-$(nproc)}
me=$$
pids=()

stop_hogs() {
  local p
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  pids=()
  [ -n "${churn_dir:-}" ] && rm -rf "$churn_dir"
  return 0
}
trap 'stop_hogs' EXIT
trap 'stop_hogs; exit 130' INT
trap 'stop_hogs; exit 143' TERM

for ((n = 0; n < hogs; n++)); do
  (
    trap - EXIT INT TERM
    while kill -0 "$me" 2>/dev/null; do
      for ((j = 0; j < 20000; j++)); do :; done
    done
  ) &
  pids+=("$!")
done
if [ "${CHURN:-1}" != 0 ]; then
  churn_dir=$(mktemp -d)
  churn_src=$churn_dir/Churn.java
  cat >"$churn_src" <<'JAVA'
public class Churn {
  public static void main(String[] a) {
    long end = System.nanoTime() + 1_000_000_000L, sum = 0;
    while (System.nanoTime() < end) sum += new byte[64].length; // about a second of work, then exit
    if (sum == 42) System.out.println(sum);
  }
}
JAVA
  (
    trap - EXIT INT TERM
    while kill -0 "$me" 2>/dev/null; do
      "$JAVA_HOME/bin/java" -Xmx64m "$churn_src" >/dev/null 2>&1 || true
    done
  ) &
  pids+=("$!")
fi
echo "verify-under-load: $hogs busy loops and a JVM starting and stopping beside them (pids ${pids[*]}), JDK at $JAVA_HOME"

start=$(date +%s)
rc=0
./mvnw -B -ntp verify "$@" || rc=$?
echo "verify-under-load: ./mvnw verify $* exited $rc after $(($(date +%s) - start)) s with $hogs busy loops"
exit "$rc"
