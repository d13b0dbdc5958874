#!/usr/bin/env bash
# JMH: each native strategy against its Java original (rocketmq-client 5.3.3), same JVM run, at
# (16 queues, 4 ids), (1,000, 100), (100,000, 1,000); prints the table docs/benchmarks.md shows.
# Usage: scripts/bench/java.sh [extra JMH options, e.g. -p size=16x4]
# JMH_RUN overrides the run lengths (default: 1 fork, 3 x 2 s warm-up, 5 x 2 s measured).
set -euo pipefail
cd "$(dirname "$0")/../../bindings/java"
mvn -q -B -DskipTests test-compile
mvn -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
out=../../target/bench-java.json
# JMH_RUN holds several JMH options: split on purpose.
# shellcheck disable=SC2086
java -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" org.openjdk.jmh.Main StrategyBenchmark \
  ${JMH_RUN:--f 1 -wi 3 -w 2s -i 5 -r 2s} -rf json -rff "$out" "$@"
python3 ../../scripts/bench/java_table.py "$out"
