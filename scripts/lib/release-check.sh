#!/usr/bin/env bash
# The release scenario (tests/e2e/run/release.sh: the x86_64 artifacts built and tested as
# installed) as a background job of the test command. It is a batch of compiles with no broker and
# shares nothing with the other stages (its own cargo target folder, Maven build folder and tools),
# so it starts with the test command, at the lowest CPU priority, meant to use the CPU the stages
# leave idle rather than to be a lane of the e2e stage, which waits for it at its end. Measured
# (docs/development.md): it finished before the e2e stage began, but the stages beside it ran
# slower, so what it saves overall is not shown yet.
#   start DIR   starts it; DIR receives out (its output), time ("<seconds> <exit status>" at its
#               end) and pid (its process group)
#   wait DIR    returns at its end (then DIR/out and DIR/time hold its result)
#   stop DIR    kills it if it still runs (the test command stopped early)
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${1:?usage: scripts/lib/release-check.sh start|wait|stop DIR}
dir=${2:?usage: scripts/lib/release-check.sh start|wait|stop DIR}
case $cmd in
  start)
    mkdir -p "$dir"
    rm -f "$dir/time" "$dir/pid"
    # Job control (set -m): a process group of its own, so that stop ends the compilers it started
    # too, in the caller's session. Not setsid: a new session is a new scheduler autogroup on Linux,
    # which gets an equal share of the CPU whatever its nice value (measured: the stages before
    # e2e took 33 minutes instead of 18 beside it).
    # (The single quotes are meant: the inner bash expands $1, $$ and $SECONDS.)
    set -m
    # shellcheck disable=SC2016
    nice -n 19 bash -c '
      echo $$ > "$1/pid"
      began=$SECONDS rc=0
      bash tests/e2e/run/release.sh > "$1/out" 2>&1 || rc=$?
      echo "$((SECONDS - began)) $rc" > "$1/time.new"
      mv "$1/time.new" "$1/time"' release-check "$dir" < /dev/null > /dev/null 2>&1 &
    ;;
  wait)
    while [[ ! -f $dir/time ]]; do
      # Gone without writing its time: killed. Its result is then a failure, not a wait forever.
      if [[ -f $dir/pid ]] && ! kill -0 "$(cat "$dir/pid")" 2> /dev/null && [[ ! -f $dir/time ]]; then
        echo "(the release check was killed before it ended)" >> "$dir/out"
        echo "0 1" > "$dir/time"
      fi
      sleep 5
    done
    ;;
  stop)
    if [[ -f $dir/pid && ! -f $dir/time ]]; then
      kill -- -"$(cat "$dir/pid")" 2> /dev/null || true
    fi
    ;;
  *) echo "usage: scripts/lib/release-check.sh start|wait|stop DIR" >&2; exit 2 ;;
esac
