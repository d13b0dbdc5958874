#!/usr/bin/env bash
# Runs stages of the test command (scripts/stages/<stage>.sh) one after another into DIR: each
# stage's output to DIR/<stage>.out and "<seconds> <exit status>" to DIR/<stage>.time; stops at the
# first that fails. scripts/test-all.sh runs the stages after e2e this way, in the background
# (scripts/lib/background.sh), and prints and records them when e2e is done.
# usage: scripts/lib/run-stages.sh DIR STAGE...
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: scripts/lib/run-stages.sh DIR STAGE...}
shift
mkdir -p "$dir"
for stage in "$@"; do
  began=$SECONDS
  rc=0
  bash "scripts/stages/$stage.sh" > "$dir/$stage.out" 2>&1 || rc=$?
  echo "$((SECONDS - began)) $rc" > "$dir/$stage.time"
  [[ $rc == 0 ]] || exit 1
done
