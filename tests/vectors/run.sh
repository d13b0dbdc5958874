#!/usr/bin/env bash
# Runs the vector generator against the real rocketmq-client jar from Maven Central.
#   tests/vectors/run.sh [--rmq49] vectors DIR       write the committed vector set into DIR
#   tests/vectors/run.sh [--rmq49] random SEED COUNT  fresh random cases + Java's answers (stdout)
#   tests/vectors/run.sh [--rmq49] oracle             answer cases from stdin, like the CLI batch form
# Default client 5.3.3; --rmq49 uses 4.9.8 (the pom's `rmq49` profile); --client VERSION any other
# release of org.apache.rocketmq:rocketmq-client (5.x; the newest is checked by the test command).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
profile=()
tag=rmq53
if [ "${1:-}" = "--rmq49" ]; then profile=(-P rmq49); tag=rmq49; shift; fi
if [ "${1:-}" = "--client" ]; then profile=(-Drocketmq.version="$2"); tag="rmq-$2"; shift 2; fi
out="$here/target/$tag"
mkdir -p "$out"
# Maven only resolves the classpath (cached per profile); javac builds the few sources directly.
if [ ! -s "$out/classpath.txt" ] || [ "$here/pom.xml" -nt "$out/classpath.txt" ]; then
  mvn -q -B -f "$here/pom.xml" "${profile[@]}" dependency:build-classpath -Dmdep.outputFile="$out/classpath.txt" >&2
fi
stamp="$out/classes/.stamp"
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" -newer "$stamp" -name '*.java' | head -1)" ]; then
  rm -rf "$out/classes" && mkdir -p "$out/classes"
  # One argument per source file (the paths have no spaces).
  # shellcheck disable=SC2046
  javac -encoding UTF-8 --release 17 -nowarn -d "$out/classes" -cp "$(cat "$out/classpath.txt")" \
    $(find "$here/src/main/java" -name '*.java')
  touch "$stamp"
fi
# file.encoding matters for 4.9.x, which hashes String.getBytes() in the platform charset.
exec java -Dfile.encoding=UTF-8 -Drocketmq.client.logRoot="$out/logs" -cp "$out/classes:$(cat "$out/classpath.txt")" \
  org.rocketmq.rebalance.vectors.Main "$@"
