#!/usr/bin/env bash
# Prints the home of a JDK >= 21: $JAVA_HOME if it qualifies, else the newest in /usr/lib/jvm
# (Debian's JVM folder), else the one `javac` on PATH belongs to. Exits 1 if none is found.
set -u

major() { # major version of the JDK at $1, or 0; reads its release file (starts no JVM)
  local v
  [ -x "$1/bin/javac" ] && [ -x "$1/bin/java" ] && [ -f "$1/release" ] || { echo 0; return; }
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release" | head -n1)
  v=${v%%[.+-]*} # "25.0.3" -> 25; "21" -> 21; "1.8.0_402" -> 1 (too old either way)
  case "$v" in ''|*[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}

if [ -n "${JAVA_HOME:-}" ] && [ "$(major "$JAVA_HOME")" -ge 21 ]; then
  echo "$JAVA_HOME"; exit 0
fi
best=""; bestv=0
for d in /usr/lib/jvm/* /opt/java/* /opt/jdk*; do
  [ -d "$d" ] || continue
  d=$(readlink -f "$d")
  v=$(major "$d")
  if [ "$v" -gt "$bestv" ]; then best="$d"; bestv="$v"; fi
done
if [ "$bestv" -ge 21 ]; then echo "$best"; exit 0; fi
if command -v javac >/dev/null 2>&1; then
  d=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  if [ "$(major "$d")" -ge 21 ]; then echo "$d"; exit 0; fi
fi
echo "no JDK >= 21 found: set JAVA_HOME or install one (e.g. apt-get install openjdk-21-jdk)" >&2
exit 1
