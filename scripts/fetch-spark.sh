#!/usr/bin/env bash
# Fetches a Spark distribution of the version tine-spark compiles against (the pyspark wheel from
# PyPI carries a complete one) into a cache folder, and prints its home: use it as SPARK_HOME for
# the local-cluster tests (-Pspark-cluster) and the cluster experiment.
#
#   export SPARK_HOME=$(scripts/fetch-spark.sh)      # first run: ~450 MB download, then cached
#
# The version must equal the spark-core that tine-spark's pom names (spark.version): a
# local-cluster executor runs the distribution's jars, the driver the test class path's.
# Cache folder: $TINE_SPARK_CACHE, default ~/.cache/tine-spark.
set -euo pipefail
version=${SPARK_VERSION:-4.2.0}
cache=${TINE_SPARK_CACHE:-$HOME/.cache/tine-spark}
home="$cache/pyspark-$version/pyspark"
if [ ! -f "$home/jars/spark-core_2.13-$version.jar" ]; then
  mkdir -p "$cache"
  py=$(command -v python3 || command -v python) || { echo "python3 (with pip) is needed" >&2; exit 1; }
  tmp="$cache/pyspark-$version.tmp"
  rm -rf "$tmp"
  # --no-deps: only the distribution (py4j and friends are not needed to run JVM jobs)
  "$py" -m pip install --quiet --no-deps --no-compile --target "$tmp" "pyspark==$version" >&2
  rm -rf "$cache/pyspark-$version"
  mv "$tmp" "$cache/pyspark-$version"
fi
# Spark's launcher takes a folder without a RELEASE file for a source build and looks for
# launcher/target/scala-2.13 ("Cannot find any build directories"); the wheel has none
[ -f "$home/RELEASE" ] || echo "Spark $version (the pyspark $version wheel's distribution)" > "$home/RELEASE"
# local-cluster starts executors with $SPARK_HOME/bin/spark-class: it must be executable
chmod +x "$home"/bin/* 2>/dev/null || true
[ -f "$home/jars/spark-core_2.13-$version.jar" ] || { echo "no Spark $version under $home" >&2; exit 1; }
echo "$home"
