#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): the JNI jar against rocketmq-client 5.3.3 and 4.9.8, under -Xcheck:jni.
# The JNI jar against rocketmq-client 5.3.3 and 4.9.8, under -Xcheck:jni, failing on any JNI
# warning; the jar's contents and bytecode level; the consumer (its own artifact) at 5.3.3 and at
# both ends of its 5.x range. (The tests that need a real broker are the e2e stage's: tests/e2e/java.)
# Runs alone too: scripts/test-all.sh --only java, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../../bindings/java"
seed=${RMQ_SEED:-$(date +%s)}

jni_warnings() {
  # -Xcheck:jni writes to the forked JVM's native stderr, which surefire keeps in *.dumpstream.
  if grep -h -E "WARNING|FATAL ERROR" "${1:-target}"/surefire-reports/*.dumpstream 2>/dev/null | sort | uniq -c | head -20 | grep .; then
    echo "JNI warnings above (-Xcheck:jni)" >&2
    exit 1
  fi
}

summary() {
  python3 ../../scripts/lib/surefire_summary.py "$@"
}

echo "-- the test-only panic-probe build of the JNI library, kept apart from the jar's"
probe=$PWD/target/panic-probe/librocketmq_rebalance_jni.so
mkdir -p "$(dirname "$probe")"
(cd ../.. && cargo build --locked -q --profile release-jar -p rocketmq-rebalance-jni --features panic-probe)
cp ../../target/release-jar/librocketmq_rebalance_jni.so "$probe"

echo "-- rocketmq-client 5.3.3: differential (vectors + 100,000 random inputs per strategy, seed $seed), concurrency, the engine"
rm -rf target/surefire-reports
mvn -B -q verify -Drmq.seed="$seed" -Drmq.panicProbe="$probe"
summary
jni_warnings
jar=target/rocketmq-rebalance-0.1.0.jar
# (grep -c reads all of unzip's output: grep -q could close the pipe early and fail pipefail.)
unzip -l "$jar" | grep -c "native/linux/x86_64/librocketmq_rebalance_jni-0.1.0.so" > /dev/null || { echo "the jar lacks its native library" >&2; exit 1; }
major=$(javap -v -cp "$jar" io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely | awk '/major version/ {print $3}')
[[ "$major" == 52 ]] || { echo "bytecode major version $major, expected 52 (Java 8)" >&2; exit 1; }
unzip -p "$jar" native/linux/x86_64/librocketmq_rebalance_jni-0.1.0.so > target/shipped-jni.so
if nm -D --defined-only target/shipped-jni.so | grep -c PanicProbe > /dev/null; then
  echo "the jar's library exports the test-only panic probe" >&2; exit 1
fi
head -c 2000 target/surefire-reports/TEST-io.github.rocketmqrebalance.PanicCrossingTest.xml | grep -c 'skipped="0"' > /dev/null \
  || { echo "PanicCrossingTest was skipped: the panic probe did not load" >&2; exit 1; }
echo "  $jar holds the native library (without the panic probe); bytecode is Java 8 (major 52)"

echo "-- the README's Java quick start: mvn install, then examples/java built against the installed coordinates"
mvn -B -q install -DskipTests
example=$(mvn -B -q -f ../../examples/java/pom.xml compile exec:java)
grep -q "CONSISTENT_HASH gives 10.0.0.1@7 \[MessageQueue" <<< "$example" || { echo "$example"; echo "examples/java did not print its allocation" >&2; exit 1; }
echo "  io.github.rocketmq-rebalance:rocketmq-rebalance:0.1.0 installed; examples/java ran"

echo "-- the consumer (SafeOrderlyConsumer): the supported range's ends, rocketmq-client 5.1.0 and 5.5.0, then 5.3.3 (the build installed)"
for v in 5.1.0 5.5.0 5.3.3; do
  rm -rf consumer/target/surefire-reports
  mvn -B -q -f consumer/pom.xml clean verify -Drocketmq.version="$v"
  echo "  rocketmq-client $v:"
  summary consumer/target/surefire-reports
  jni_warnings consumer/target
done
mvn -B -q -f consumer/pom.xml install -DskipTests

echo "-- the Spring Boot starter: its auto-configuration inside a real rocketmq-spring context (an in-process NameServer)"
mvn -B -q -f spring-boot-starter/pom.xml install
python3 ../../scripts/lib/surefire_summary.py spring-boot-starter/target/surefire-reports

echo "-- rocketmq-client 4.9.8: the jar whole: differential, concurrency, the engine (seed $seed)"
rm -rf target/surefire-reports
mvn -B -q -P rmq49 verify -Drmq.seed="$seed" -Drmq.panicProbe="$probe"
summary
jni_warnings
echo "Java binding: all tests passed"
