#!/usr/bin/env bash
# Go and Java push consumers in one consumer group on a real NameServer + Broker 5.3.3 (its own
# process, loopback ports chosen at run time): with this project's strategies every queue has
# exactly one owner across both languages and every message is consumed, through a Go consumer
# joining and one leaving; with each client's own consistent hash, the script counts queues with
# no owner or two, and messages left unconsumed. The driver is tests/e2e/drivers/mixed_go.py.
# Called by scripts/test-all.sh; runs alone too (about 3 minutes). Logs stay in the printed
# directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_group_driver "mixed group e2e" mixed_go rmq-mixed
