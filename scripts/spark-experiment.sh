#!/usr/bin/env bash
# The cluster experiment (tine-spark's ClusterExperiment): UTS and fib on one JVM, Spark local[2]
# and local-cluster[2,1,1024], with exact results, start-up cost and efficiency.
#
#   scripts/spark-experiment.sh                      # the full run (several minutes on 2 cores)
#   scripts/spark-experiment.sh --fib 40 --uts-depth 10 --masters 'tine[2],local[2]'
#
# Compiles tine-core and tine-spark, fetches the Spark distribution (scripts/fetch-spark.sh) and
# runs the driver on its jars, with the JVM options SparkJvmOptions gives for this JDK (from
# spark-jvm.options, the one place; plus sun.security.action's only on a JDK that has it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export JAVA_HOME=$(scripts/find-jdk.sh)
export SPARK_HOME=${SPARK_HOME:-$(scripts/fetch-spark.sh)}
export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}
export SPARK_SCALA_VERSION=2.13 # local-cluster: Spark's launcher finds the distribution's jars by it
if [ -z "${TINE_NO_BUILD:-}" ]; then
  ./mvnw -B -ntp -q -pl tine-core,tine-spark compile -Dspotless.check.skip=true >&2
fi
cp="$root/tine-core/target/classes:$root/tine-spark/target/classes:$SPARK_HOME/jars/*"
opts=$("$JAVA_HOME/bin/java" -cp "$root/tine-spark/target/classes" dev.tine.spark.SparkJvmOptions)
mapfile -t spark_opts <<<"$opts"
exec "$JAVA_HOME/bin/java" "${spark_opts[@]}" \
  -Xss4m -Xmx2g -cp "$cp" dev.tine.spark.ClusterExperiment "$@"
