#!/usr/bin/env bash
# The in-JVM real-broker tests of tests/e2e/java, JUnit under -Xcheck:jni: a NameServer and a
# Broker 5.3.3 in the test's own JVM (LocalCluster, loopback ports chosen at run time), the jar's
# strategies through real DefaultMQPushConsumers (EndToEndTest), SafeOrderlyConsumer's handoffs,
# retries, dead letters and subscriptions at the broker (SafeOrderlyConsumerTest), its tag and
# SQL92 filters (SafeOrderlyFiltersTest), its start from a timestamp (SafeOrderlyStartTest), its
# lock renewal through a NameServer that never answers (SafeOrderlyNameServerOutageTest),
# and the patience helper the process mains share (PatienceTest). Fails on a failed test or on any JNI warning.
# About 4.5 minutes: the classes run in two JVMs side by side (tests/e2e/java/pom.xml).
# Called by scripts/stages/e2e.sh (the test command); runs alone too.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

e2e_build java cli
reports=tests/e2e/java/target/surefire-reports
rm -rf "$reports"
# surefire:test alone: the classes are those e2e_build compiled, which the other scenarios' processes
# may be running from at this moment; a lifecycle build here could compile them again under them.
rc=0
# The CLI the tests run (inspect against a broker with ACL).
mvn -B -q -f tests/e2e/java/pom.xml surefire:test -Drmq.rebalance.cli="$RMQ_E2E_BUILD/rmq-rebalance" || rc=$?
python3 scripts/lib/surefire_summary.py "$reports"
# -Xcheck:jni writes to the forked JVM's native stderr, which surefire keeps in *.dumpstream.
if grep -h -E "WARNING|FATAL ERROR" "$reports"/*.dumpstream 2>/dev/null | sort | uniq -c | head -20 | grep .; then
  echo "JNI warnings above (-Xcheck:jni)" >&2
  exit 1
fi
if [[ $rc != 0 ]]; then
  for f in "$reports"/*.txt; do grep -q "FAILURE\|ERROR" "$f" && cat "$f"; done
  exit "$rc"
fi
echo "real-broker Java tests: all passed"
