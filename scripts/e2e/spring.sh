#!/usr/bin/env bash
# A Spring Boot application (examples/spring-boot, a plain rocketmq-spring listener) in one group
# with a Java and a Go consumer on a real NameServer + Broker 5.3.3, on each supported Spring Boot
# version: one property, rocketmq.rebalance.strategy=consistent_hash, makes every queue held once
# and every message consumed; the same application without it runs rocketmq-spring's AVG (the
# control). The driver is tests/e2e/spring_group.py. Called by scripts/stages/e2e.sh; runs alone
# too (about 3 minutes). Logs stay in the printed directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=scripts/lib/e2e-common.sh
source scripts/lib/e2e-common.sh
# The Spring Boot versions supported and tested (docs/java.md says the same).
boots=(2.7.18 3.5.7)

echo "-- building: the jar and the starter (installed), examples/spring-boot on Spring Boot ${boots[*]}, the Go and Java test consumers"
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-spring.XXXXXX")
(cd bindings/java && mvn -B -q install -DskipTests && mvn -B -q -f spring-boot-starter/pom.xml install -DskipTests)
boot_args=()
for v in "${boots[@]}"; do
  mvn -B -q -f examples/spring-boot/pom.xml -Dspring-boot.version="$v" -Dexample.build="$state/boot-$v" \
    package dependency:build-classpath -Dmdep.outputFile="$state/boot-$v.cp" > /dev/null
  boot_args+=(--boot "$v" "$state/boot-$v/classes:$(cat "$state/boot-$v.cp")")
done
run_group_driver "spring e2e" tests/e2e/spring_group.py "$state" "${boot_args[@]}"
