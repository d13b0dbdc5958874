#!/usr/bin/env bash
# Orderly consumption throughput, SafeOrderlyConsumer against DefaultMQPushConsumer +
# MessageListenerOrderly, side by side on one real NameServer + Broker 5.3.3 in one JVM
# (bench/OrderlyThroughputMain in tests/e2e/java): the same stored messages, a fresh group
# per run, the sides alternating; prints each run and the table of medians docs/benchmarks.md shows.
# Usage: scripts/bench/orderly.sh [messages (20000)] [runs (3)] [queue counts... (8 32)]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/lib/install-java.sh
cd tests/e2e/java
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath
java -Xmx1g -Drocketmq.client.logUseSlf4j=false -cp "target/classes:$(cat target/bench.classpath)" \
  io.github.rocketmqrebalance.bench.OrderlyThroughputMain "$@"
