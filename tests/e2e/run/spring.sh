#!/usr/bin/env bash
# A Spring Boot application (examples/spring-boot, a plain rocketmq-spring listener) in one group
# with a Java and a Go consumer on a real NameServer + Broker 5.3.3, on each supported Spring Boot
# version: one property, rocketmq.rebalance.strategy=consistent_hash, makes every queue held once
# and every message consumed; the same application without it runs rocketmq-spring's AVG (the
# control). The driver is tests/e2e/drivers/spring.py. Called by scripts/stages/e2e.sh; runs alone
# too (about 3 minutes). Logs stay in the printed directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh
e2e_build spring cli go java
boot_args=()
for v in $SPRING_BOOTS; do
  boot_args+=(--boot "$v" "$(cat "$RMQ_E2E_BUILD/boot-$v.cp")")
done
run_group_driver "spring e2e" spring rmq-spring "${boot_args[@]}"
