#!/usr/bin/env bash
# The Java artifacts of dist/maven as a user's project gets them, on one architecture: a Maven
# project of its own (verify-java/) resolves the strategies jar and the consumer from dist/maven
# only (its local repository is this machine's with our artifacts left out, hard-linked so that it
# costs no copy) and rocketmq-client as usual; its program runs with nothing on java.library.path,
# so the JNI library can only come from inside the jar, and compares three strategies with
# rocketmq-client's own, runs one engine round and constructs a SafeOrderlyConsumer. aarch64: the
# same program on Debian's arm64 Java 17 under qemu-user. Both: a JVM that reports another platform
# gets the error naming it and the platforms shipped.
# Usage: scripts/release/verify-java.sh DIST_DIR ARCH WORK
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="$1" arch="$2" work="$3"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
fail() { echo "release verify (Java, $arch): $*" >&2; exit 1; }
echo "-- $arch: the jars"
rm -rf "$work"
mkdir -p "$work"
local_repo="$work/m2"
# Hard links to every file but our own group's, which the test command's Java and e2e stages may
# be installing at this moment (a file that vanishes while being linked is skipped, not an error).
python3 - "$HOME/.m2/repository" "$local_repo" io/github/rocketmq-rebalance <<'PY'
import os, sys
src, dst, ours = sys.argv[1], sys.argv[2], os.path.join(sys.argv[1], sys.argv[3])
for root, dirs, files in os.walk(src):
    dirs[:] = [d for d in dirs if os.path.join(root, d) != ours]
    into = os.path.join(dst, os.path.relpath(root, src))
    os.makedirs(into, exist_ok=True)
    for f in files:
        try:
            os.link(os.path.join(root, f), os.path.join(into, f))
        except FileNotFoundError:
            pass
PY
cp -r scripts/release/verify-java "$work/project"
if ! (cd "$work/project" && mvn -B -q -Dstyle.color=never -Dmaven.repo.local="$local_repo" -Ddist.repo="file://$dist/maven" \
  package dependency:build-classpath -Dmdep.outputFile=classpath.txt) > "$work/mvn.log" 2>&1; then
  cat "$work/mvn.log" >&2
  fail "the project did not build against dist/maven"
fi
jar="$local_repo/io/github/rocketmq-rebalance/rocketmq-rebalance/$version/rocketmq-rebalance-$version.jar"
cmp -s "$jar" "$dist/maven/io/github/rocketmq-rebalance/rocketmq-rebalance/$version/rocketmq-rebalance-$version.jar" \
  || fail "Maven resolved the strategies jar from somewhere else than dist/maven"
cp="$work/project/target/classes:$(cat "$work/project/classpath.txt")"
if [[ $arch == "$(uname -m)" ]]; then
  java=(java)
else
  sysroot=$(scripts/release/arm64-sysroot.sh)
  java=(qemu-aarch64 -L "$sysroot" "$sysroot/usr/lib/jvm/java-17-openjdk-arm64/bin/java")
fi
out=$("${java[@]}" -Djava.library.path=/nonexistent -cp "$cp" ReleaseJarCheck 2>&1) || fail "$out"
[[ $out == "ok "* ]] || fail "$out"
echo "  resolved from dist/maven; the JNI library from inside the jar: ${out#ok }"
jar tf "$jar" > "$work/jar.list"
shipped=""
for p in linux/x86_64 linux/aarch64; do  # Native.shippedPlatforms' order
  if grep -q "^native/$p/" "$work/jar.list"; then shipped+="${shipped:+, }$p"; fi
done
out=$("${java[@]}" -Dos.arch=riscv64 -Djava.library.path=/nonexistent -cp "$cp" ReleaseJarCheck 2>&1) \
  && fail "a riscv64 JVM loaded the jar: $out"
grep -q "no native library for linux/riscv64 (this jar has one for $shipped)" <<< "$out" || fail "on riscv64: $out"
echo "  on a platform not shipped: $(grep -o 'no native library for linux/riscv64 ([^)]*)' <<< "$out" | head -1)"
