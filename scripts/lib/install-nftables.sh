#!/usr/bin/env bash
# nft (Debian's nftables) for the partition tests (tests/e2e/run/multi-broker.sh, stale-request.sh), installed when it
# is missing. The test only ever runs it inside network namespaces it makes; installing it adds no
# rule to the machine.
set -euo pipefail
command -v nft > /dev/null && exit 0
# A fresh machine's package lists may not name the package yet.
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nftables >&2; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nftables >&2
fi
