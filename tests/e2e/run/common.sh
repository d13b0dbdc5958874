# shellcheck shell=bash
# What the real-broker scenarios (tests/e2e/run/<scenario>.sh) share; sourced, never run, from the
# repository's root.
#
# Builds go into one folder, $RMQ_E2E_BUILD: the e2e stage builds everything once, up front, and
# then runs the scenarios side by side (two builds of one Maven project at once would overwrite
# each other's classes). A driver run alone builds what it needs into a folder of its own.

# The build folder, made on first use when the caller gave none (and then removed at exit).
e2e_build_dir() {
  if [[ -z "${RMQ_E2E_BUILD:-}" ]]; then
    RMQ_E2E_BUILD=$(mktemp -d "${TMPDIR:-/tmp}/rmq-e2e-build.XXXXXX")
    export RMQ_E2E_BUILD
    trap 'rm -rf "$RMQ_E2E_BUILD"' EXIT
  fi
  mkdir -p "$RMQ_E2E_BUILD"
}

# Builds what the scenarios need, each part once per build folder (a part already built is kept):
#   cli        target/debug/rmq-rebalance, copied to $RMQ_E2E_BUILD/rmq-rebalance (the scenarios run
#              the copy: the test command's later stages run beside them and may build target/ again)
#   java       the jars installed, and tests/e2e/java (the 5.x cluster, the Java process mains and the
#              in-JVM real-broker tests) compiled: its classpath in $RMQ_E2E_BUILD/java.cp
#   go         the Go test consumer (tests/e2e/go): $RMQ_E2E_BUILD/go-consumer
#   cluster49  the 4.9.7 cluster (tests/e2e/java49): $RMQ_E2E_BUILD/cluster49.cp
#   spring     the jars installed, examples/spring-boot per Spring Boot version in
#              $SPRING_BOOTS: $RMQ_E2E_BUILD/boot-<version>.cp
# The builds' own output goes to stderr, so that a caller's $(...) captures nothing of it.
e2e_build() {
  e2e_build_dir
  local part
  for part in "$@"; do
    [[ -f "$RMQ_E2E_BUILD/$part.done" ]] && continue
    case $part in
      cli) cargo build --locked -q -p rocketmq-rebalance-cli && cp target/debug/rmq-rebalance "$RMQ_E2E_BUILD/rmq-rebalance" ;;
      java)
        e2e_install_jar
        mvn -B -q -f tests/e2e/java/pom.xml test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$RMQ_E2E_BUILD/java.deps"
        echo "$PWD/tests/e2e/java/target/classes:$PWD/tests/e2e/java/target/test-classes:$(cat "$RMQ_E2E_BUILD/java.deps")" > "$RMQ_E2E_BUILD/java.cp"
        ;;
      go)
        scripts/build-go.sh > /dev/null
        (cd tests/e2e/go && go build -o "$RMQ_E2E_BUILD/go-consumer" .)
        ;;
      cluster49)
        e2e_install_jar
        mvn -B -q -f tests/e2e/java49/pom.xml compile dependency:build-classpath -Dmdep.outputFile="$RMQ_E2E_BUILD/cluster49.deps"
        echo "$PWD/tests/e2e/java49/target/classes:$(cat "$RMQ_E2E_BUILD/cluster49.deps")" > "$RMQ_E2E_BUILD/cluster49.cp"
        ;;
      spring)
        e2e_install_jar
        local v
        for v in $SPRING_BOOTS; do
          mvn -B -q -f examples/spring-boot/pom.xml -Dspring-boot.version="$v" -Dexample.build="$RMQ_E2E_BUILD/boot-$v" \
            package dependency:build-classpath -Dmdep.outputFile="$RMQ_E2E_BUILD/boot-$v.deps" > /dev/null
          echo "$RMQ_E2E_BUILD/boot-$v/classes:$(cat "$RMQ_E2E_BUILD/boot-$v.deps")" > "$RMQ_E2E_BUILD/boot-$v.cp"
        done
        ;;
      *) echo "e2e_build: no part '$part'" >&2; return 2 ;;
    esac >&2
    touch "$RMQ_E2E_BUILD/$part.done"
  done
}

# The jar, the consumer and the starter (bindings/java) into the local Maven repository, once per build folder:
# the Java projects under tests/e2e depend on them by their coordinates, as a user's application does.
e2e_install_jar() {
  [[ -f "$RMQ_E2E_BUILD/jar.done" ]] && return 0
  scripts/lib/install-java.sh >&2
  touch "$RMQ_E2E_BUILD/jar.done"
}

# Runs the Python driver tests/e2e/drivers/$1.py with the rest of the arguments (drivers import
# tests/e2e's packages: fixtures, checkers).
e2e_python() {
  local driver=$1
  shift
  PYTHONPATH="$PWD/tests/e2e${PYTHONPATH:+:$PYTHONPATH}" python3 -m "drivers.$driver" "$@"
}

# The Spring Boot versions supported and tested (docs/java.md says the same).
SPRING_BOOTS="2.7.18 3.5.7"

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

# A driver whose processes are the Java test mains: $1 names it in messages, $2 prefixes its
# state folder, $3 is the driver (tests/e2e/drivers/$3.py), and the rest go to it after --java-cp
# and --state.
run_java_driver() {
  local name=$1 prefix=$2 driver=$3
  shift 3
  e2e_build java
  local state
  state=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX")
  run_driver "$name" "$state" 15 e2e_python "$driver" --java-cp "$(cat "$RMQ_E2E_BUILD/java.cp")" --state "$state" "$@"
}

# A driver that partitions its processes (fixtures/netns.py): run in a network namespace made here
# (unshare -n), so that every rule, interface and packet of the test stays out of the machine's
# own. $1 names it in messages, $2 prefixes its state folder, $3 is the driver
# (tests/e2e/drivers/$3.py). Needs root and nftables, installed from Debian when missing.
run_netns_driver() {
  local name=$1 prefix=$2 driver=$3
  scripts/lib/install-nftables.sh
  e2e_build java
  local state
  state=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX")
  run_driver "$name" "$state" 15 unshare -n -- env PYTHONPATH="$PWD/tests/e2e" python3 -m "drivers.$driver" \
    --java-cp "$(cat "$RMQ_E2E_BUILD/java.cp")" --state "$state"
}

# A driver whose processes are Go and Java test consumers (those built on fixtures/push_group.py):
# $1 names it in messages, $2 is the driver (tests/e2e/drivers/$2.py), $3 prefixes its state
# folder; the rest of the arguments go to the driver too.
run_group_driver() {
  local name=$1 driver=$2 prefix=$3
  shift 3
  e2e_build cli go java
  local state
  state=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX")
  run_driver "$name" "$state" 20 e2e_python "$driver" --java-cp "$(cat "$RMQ_E2E_BUILD/java.cp")" --go-consumer "$RMQ_E2E_BUILD/go-consumer" \
    --rmq-rebalance "$RMQ_E2E_BUILD/rmq-rebalance" --state "$state" "$@"
}
