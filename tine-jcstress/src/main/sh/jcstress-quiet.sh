#!/usr/bin/env bash
# Runs the command given (jcstress) and passes its output through, except the three lines a JVM
# prints when refused -XX:-UseBiasedLocking: jcstress 0.16 probes for biased locking, which JDK 15+
# no longer has, reports the probe as "[N/A]" (expected, harmless) and then echoes the refused
# JVM's "Unrecognized VM option ... Could not create the Java Virtual Machine", which reads like a
# broken build. The exit code is the command's.
set -o pipefail
"$@" 2>&1 | awk '
  /Checking for biased locking support/ { print; probe = 1; fflush(); next }
  probe && /^Unrecognized VM option .UseBiasedLocking.$/ { next }
  probe && /^Error: Could not create the Java Virtual Machine\.$/ { next }
  probe && /^Error: A fatal exception has occurred\. Program will exit\.$/ { next }
  { probe = 0; print; fflush() }'
