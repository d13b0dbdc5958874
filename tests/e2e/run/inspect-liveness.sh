#!/usr/bin/env bash
# Held queues nobody consumes, on a real NameServer + Broker 5.3.3 (its own process, loopback ports
# chosen at run time), each named exactly by `rmq-rebalance inspect` and seen to heal: a Go orderly
# consumer giving queues up without unlocking them (orphaned while its locks last), a Java orderly
# consumer frozen past the lock expiry whose lock another process took (orderly_lock_stuck), and a
# Go consumer whose hung listener blocks two queues' pulls (not_pulled). The driver is
# tests/e2e/drivers/inspect_liveness.py. Called by scripts/stages/e2e.sh; runs alone too (about 4 minutes;
# --only revoke|stuck|idle runs some).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_group_driver "inspect liveness e2e" inspect_liveness rmq-liveness "$@"
