#!/usr/bin/env bash
# The shipped Prometheus rules in a real Prometheus (Debian's package, unpacked by
# scripts/lib/install-prometheus.sh) scraping `rmq-rebalance watch` of a real NameServer + Broker
# 5.3.3 (loopback ports chosen at run time), while eleven groups go wrong in known ways, one alert
# each (a Go revoke without unlock, one client id in two processes, a frozen member, a slow listener,
# a group whose consumer left, a hung pull loop, another strategy, a stale commit, a crash loop, a
# lock taken by another client) and one goes through a clean rolling restart; then the cluster is
# frozen. Prometheus's API must name exactly the expected alerts.
# The driver is tests/e2e/drivers/alerts.py. Called by scripts/stages/e2e.sh; runs alone too
# (about 4 minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

prometheus=$(bash scripts/lib/install-prometheus.sh)
run_group_driver "alerts e2e" alerts rmq-alerts --prometheus "$prometheus" "$@"
