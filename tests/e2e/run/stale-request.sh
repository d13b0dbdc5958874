#!/usr/bin/env bash
# A lock or unlock the client saw time out during a partition must not reach the broker after the
# heal (tests/e2e/drivers/stale_request.py says why and what must hold): one broker, two clients,
# each in a network namespace of its own, one closing its connections gracefully (the stock
# client), one abortively (SafeOrderlyConsumer's AbortiveClose). The driver runs in a network
# namespace made here (unshare -n); the rules live in the clients' namespaces and go with them.
# Needs root and nftables (installed from Debian when missing). About 2 minutes. Called by
# scripts/stages/e2e.sh; runs alone too. Logs stay in the printed directory on failure (and always
# with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_netns_driver "stale-request e2e" rmq-stale-request stale_request
