#!/usr/bin/env bash
# One command run as a background job at the lowest CPU and disk priority (nice 19, the idle I/O
# class), for work that only has to be done by a later point and can use the CPU a foreground job
# leaves idle: the test command runs the stages after e2e this way while the e2e scenarios mostly
# wait on brokers' clocks (scripts/test-all.sh).
#   start DIR CMD...   starts CMD in the repository's root; DIR receives out (its output), time
#                      ("<seconds> <exit status>" at its end) and pid (its process group)
#   wait DIR           returns at its end (then DIR/out and DIR/time hold its result)
#   stop DIR           kills it and everything it started if it still runs (the caller stopped early)
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: scripts/lib/background.sh start DIR CMD... | wait DIR | stop DIR"
cmd=${1:?$usage}
dir=${2:?$usage}
case $cmd in
  start)
    shift 2
    [[ $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
    mkdir -p "$dir"
    rm -f "$dir/time" "$dir/pid"
    # Job control (set -m): a process group of its own, so that stop ends what it started too, in
    # the caller's session. Not setsid: a new session is a new scheduler autogroup on Linux, which
    # gets an equal share of the CPU whatever its nice value (measured: stages beside such a job
    # took 33 minutes instead of 18).
    ionice=()
    command -v ionice > /dev/null && ionice -c 3 true 2> /dev/null && ionice=(ionice -c 3)
    set -m
    # (The single quotes are meant: the inner bash expands $1, $$ and $SECONDS.)
    # shellcheck disable=SC2016
    nice -n 19 "${ionice[@]}" bash -c '
      dir=$1
      shift
      echo $$ > "$dir/pid"
      began=$SECONDS rc=0
      "$@" > "$dir/out" 2>&1 || rc=$?
      echo "$((SECONDS - began)) $rc" > "$dir/time.new"
      mv "$dir/time.new" "$dir/time"' background "$dir" "$@" < /dev/null > /dev/null 2>&1 &
    ;;
  wait)
    while [[ ! -f $dir/time ]]; do
      # Gone without writing its time: killed. Its result is then a failure, not a wait forever.
      if [[ -f $dir/pid ]] && ! kill -0 "$(cat "$dir/pid")" 2> /dev/null && [[ ! -f $dir/time ]]; then
        echo "(the background job was killed before it ended)" >> "$dir/out"
        echo "0 1" > "$dir/time"
      fi
      sleep 2
    done
    ;;
  stop)
    if [[ -f $dir/pid && ! -f $dir/time ]]; then
      kill -- -"$(cat "$dir/pid")" 2> /dev/null || true
    fi
    ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
