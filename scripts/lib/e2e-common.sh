# shellcheck shell=bash
# What the real-broker drivers (scripts/e2e/*.sh) share; sourced, never run.

# The classpath of the Java test processes (the jar's classes, the test classes, their
# dependencies), built into the state folder $1 and printed: the build's own output goes to
# stderr, so that a caller's $(...) captures the classpath alone.
java_test_classpath() {
  local state=$1
  (cd bindings/java && mvn -B -q test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$state/classpath") >&2
  echo "$PWD/bindings/java/target/classes:$PWD/bindings/java/target/test-classes:$(cat "$state/classpath")"
}

# Runs a driver (the rest of the arguments) that writes its processes' logs under $2; on success
# the state folder goes (kept with RMQ_KEEP_STATE=1), on failure the last $3 lines of each log
# are printed and the folder is kept.
run_driver() {
  local name=$1 state=$2 lines=$3
  shift 3
  # The driver's stderr is kept apart so that, on a failure, its reason is printed after the
  # processes' log tails: a CI log cut to its last lines then still shows why.
  local err="$state/driver.stderr"
  if "$@" 2> "$err"; then
    cat "$err" >&2
    if [[ "${RMQ_KEEP_STATE:-0}" == 1 ]]; then echo "state kept in $state"; else rm -rf "$state"; fi
    return 0
  fi
  echo "$name failed; logs in $state" >&2
  for log in "$state"/*.log "$state"/*/*.log; do
    [[ -f "$log" ]] && { echo "== $log"; tail -n "$lines" "$log"; }
  done >&2
  echo "== $name failed, the driver said:" >&2
  tail -n 40 "$err" >&2
  return 1
}

# A driver whose processes are the Java test classes: $1 names it in messages, $2 prefixes its
# state folder, $3 is the driver (tests/e2e/*.py), and the rest go to it after --java-cp and --state.
run_java_driver() {
  local name=$1 prefix=$2 driver=$3
  shift 3
  echo "-- building: the jar's classes, the test processes and their classpath"
  local state java_cp
  state=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX")
  java_cp=$(java_test_classpath "$state")
  run_driver "$name" "$state" 15 python3 "$driver" --java-cp "$java_cp" --state "$state" "$@"
}

# A driver whose processes are Go and Java test consumers (tests/e2e/mixed_group.py and those that
# share its Group): builds the Go test consumer into the state folder $3, the CLI and the Java test
# classpath, then runs the driver $2 with the paths of all three, $1 naming it in messages; the
# rest of the arguments go to the driver too.
run_group_driver() {
  local name=$1 driver=$2 state=$3
  shift 3
  scripts/build-go.sh > /dev/null
  (cd bindings/go && go build -o "$state/go-consumer" ./e2e/consumer)
  cargo build --locked -q -p rocketmq-rebalance-cli
  local java_cp
  java_cp=$(java_test_classpath "$state")
  run_driver "$name" "$state" 20 python3 "$driver" --java-cp "$java_cp" --go-consumer "$state/go-consumer" \
    --rmq-rebalance target/debug/rmq-rebalance --state "$state" "$@"
}
