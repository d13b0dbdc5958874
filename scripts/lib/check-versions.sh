#!/usr/bin/env bash
# Fails when the versions the project ships under disagree: the Cargo workspace version is the
# one source; every crate inherits it, and the Maven project, the C header's macros and the
# jar's expected file names must say the same. (The Python wheel takes the crate's version through
# maturin, so inheriting it is enough.)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
IFS=. read -r major minor patch <<< "$version"
bad=0
fail() { echo "version mismatch: $*" >&2; bad=1; }

for crate in core cli sim ffi bindings/python bindings/java/native; do
  grep -qx 'version.workspace = true' "$crate/Cargo.toml" || fail "$crate/Cargo.toml does not inherit the workspace version"
done
grep -qx 'dynamic = \["version"\]' bindings/python/pyproject.toml || fail "bindings/python/pyproject.toml sets its own version"
# The <version> that follows a project's own <artifactId> in its pom.
pom_version() {
  local pom=$1 artifact=$2 found
  found=$(awk -v a="<artifactId>$artifact</artifactId>" 'index($0, a) {f = 1} f && /<version>/ {gsub(/.*<version>|<\/version>.*/, ""); print; exit}' "$pom")
  [[ "$found" == "$version" ]] || fail "$pom says ${found:-nothing}, Cargo.toml $version"
}
pom_version bindings/java/pom.xml rocketmq-rebalance
pom_version bindings/java/consumer/pom.xml rocketmq-rebalance-consumer
pom_version bindings/java/spring-boot-starter/pom.xml rocketmq-rebalance-spring-boot-starter
pom_version scripts/release/java-reactor/pom.xml rocketmq-rebalance-release-reactor
header=include/rocketmq_rebalance.h
for part in MAJOR:"$major" MINOR:"$minor" PATCH:"$patch"; do
  grep -qx "#define RMQ_VERSION_${part%%:*} ${part#*:}" "$header" || fail "$header RMQ_VERSION_${part%%:*} is not ${part#*:}"
done
grep -q "rocketmq-rebalance-$version.jar" scripts/stages/java.sh || fail "scripts/stages/java.sh expects another jar version"
grep -qx "const Version = \"$version\"" bindings/go/version.go || fail "bindings/go/version.go says another version"
grep -q "<version>$version</version>" examples/java/pom.xml || fail "examples/java/pom.xml depends on another version of the jar"
for pom in bindings/java/consumer/pom.xml bindings/java/spring-boot-starter/pom.xml; do
  grep -q "<rocketmq-rebalance.version>$version</rocketmq-rebalance.version>" "$pom" || fail "$pom depends on another version of the jar"
done
grep -q "<rebalance.version>$version</rebalance.version>" scripts/release/verify-java/pom.xml || fail "scripts/release/verify-java/pom.xml depends on another version"
grep -q "<rebalance.version>$version</rebalance.version>" tests/e2e/java/pom.xml || fail "tests/e2e/java/pom.xml depends on another version of the jar"
grep -q "<version>$version</version>" examples/spring-boot/pom.xml || fail "examples/spring-boot/pom.xml depends on another version of the starter"
[[ $bad == 0 ]] && echo "versions agree: $version (Cargo, every crate, Python, Maven, the consumer, the Spring starter, C header, jar, Go, examples, tests/e2e)"
exit $bad
