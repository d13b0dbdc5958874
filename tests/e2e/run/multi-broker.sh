#!/usr/bin/env bash
# Network partitions on a cluster of two broker names, each a master and a slave (five server
# processes, addresses and ports chosen at run time): one consumer cut from one broker both ways
# past the lock expiry, one way (answers lost; requests lost), from the NameServer only; a master's
# kill past the expiry, a rolling restart and a master's restart during a second one; the engine
# and the stock consumer side by side, judged against both masters' lock tables
# (tests/e2e/drivers/multi_broker.py says what must hold). The driver runs in a network namespace made
# here (unshare -n) and each consumer in one of its own; the rules live in those namespaces and go
# with them, never in the machine's own. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and nftables,
# installed here from Debian when missing. About 10 minutes, 13 JVMs: too long for the test
# command, it runs in scripts/test-long.sh (docs/development.md says when); runs alone too. Logs
# stay in the printed directory on failure (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_netns_driver "multi-broker e2e" rmq-multi-broker multi_broker
