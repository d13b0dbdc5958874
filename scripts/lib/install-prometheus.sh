#!/usr/bin/env bash
# Prometheus and promtool from Debian's package, unpacked into target/tools/prometheus (apt-get
# download + dpkg -x: nothing is installed on the machine). Prints the folder holding the two
# binaries. The checks of deploy/ (scripts/lib/check_deploy.py) and the watch e2e use them.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=target/tools/prometheus
if [[ ! -x $dir/root/usr/bin/promtool ]]; then
  rm -rf "$dir" && mkdir -p "$dir"
  # A fresh machine's package lists may not name the package yet.
  if ! (cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root prometheus) >&2; then
    apt-get update -qq >&2
    (cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root prometheus) >&2
  fi
  dpkg -x "$dir"/prometheus_*.deb "$dir/root"
fi
echo "$PWD/$dir/root/usr/bin"
