#!/usr/bin/env bash
# Network partitions on a cluster of two broker names, each a master and a slave (five server
# processes, addresses and ports chosen at run time): one consumer cut from one broker both ways
# past the lock expiry, one way (answers lost; requests lost), from the NameServer only; the engine
# and the stock consumer side by side, judged against both masters' lock tables
# (tests/e2e/drivers/partitions.py says what must hold). The driver runs in a network namespace made
# here (unshare -n) and each consumer in one of its own; the rules live in those namespaces and go
# with them, never in the machine's own. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and nftables,
# installed here from Debian when missing. About 8 minutes. Called by scripts/stages/e2e.sh; runs
# alone too. Logs stay in the printed directory on failure (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

scripts/lib/install-nftables.sh
e2e_build java
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-multi-broker.XXXXXX")
run_driver "multi-broker e2e" "$state" 15 unshare -n -- env PYTHONPATH="$PWD/tests/e2e" python3 -m drivers.multi_broker \
  --java-cp "$(cat "$RMQ_E2E_BUILD/java.cp")" --state "$state"
