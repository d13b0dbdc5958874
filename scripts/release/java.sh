#!/usr/bin/env bash
# The Java artifacts: the strategies jar with one JNI library per architecture built
# (native/linux/<arch>/, loaded by Native.os()/arch()), the SafeOrderlyConsumer jar and the Spring
# Boot starter, each with its pom, deployed into a Maven file repository, OUT_DIR/maven (the
# tests ran in the test command's java stage; they are skipped here). Prints the strategies jar.
# Usage: scripts/release/java.sh OUT_DIR ARCH=BUILT_DIR...  (BUILT_DIR from scripts/release/native.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(realpath -m "${1:?usage: scripts/release/java.sh OUT_DIR ARCH=BUILT_DIR...}")"
shift
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
staging="$PWD/target/release-stage/java-natives"
rm -rf "$staging" target/release-stage/maven-build
for pair in "$@"; do
  arch="${pair%%=*}"
  built="${pair#*=}"
  install -D -m 0755 "$built/librocketmq_rebalance_jni.so" "$staging/linux/$arch/librocketmq_rebalance_jni-$version.so"
done
# One reactor (java-reactor/pom.xml), packaged then deployed by the deploy plugin's goal alone:
# nothing goes through ~/.m2, which a test command running beside this may be loading jars from.
log="$PWD/target/release-stage/java-deploy.log"
# Built under target/release-stage/maven-build (the poms' build-root profile), never in the
# modules' own target/ folders, which the test command's Java stage uses at the same time.
if ! mvn -B -q -Dstyle.color=never -DskipTests -Dnative.staging="$staging" -Drmq.build.root="$PWD/target/release-stage/maven-build" \
  -f scripts/release/java-reactor/pom.xml \
  package org.apache.maven.plugins:maven-deploy-plugin:3.1.4:deploy -DaltDeploymentRepository="dist::file://$out/maven" > "$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
jar="$out/maven/io/github/rocketmq-rebalance/rocketmq-rebalance/$version/rocketmq-rebalance-$version.jar"
[[ -f $jar ]] || { echo "no $jar after the deploy" >&2; exit 1; }
echo "$jar"
