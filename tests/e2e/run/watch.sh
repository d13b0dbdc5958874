#!/usr/bin/env bash
# `rmq-rebalance watch` on a real NameServer + Broker 5.3.3 (its own process, loopback ports chosen
# at run time), watching every group: a join's owner changes checked against the consumers' own
# held files and the group judged OK, and a group whose only consumer left with messages waiting
# judged offline (member_down, its lag stuck, STOP). The driver is tests/e2e/drivers/watch.py.
# Called by scripts/stages/e2e.sh; runs alone too (about 3 minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_group_driver "watch e2e" watch rmq-watch "$@"
