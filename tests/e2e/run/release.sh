#!/usr/bin/env bash
# The x86_64 release artifacts, built by scripts/release.sh (glibc 2.17 through zig) into a
# folder of their own and tested as a user installs them (scripts/release/verify.sh): the wheel by
# pip with the binding's tests, the C archive through pkg-config and CMake, the jar against
# rocketmq-client, the Go module through `go get` from a module proxy folder, the CLI on the
# Java-answered vectors, no symbol newer than GLIBC_2.17 anywhere. No broker. aarch64 is not built
# here (it needs Debian's arm64 packages and qemu-user: `scripts/release.sh --target all --verify`).
# Called by scripts/test-long.sh (its 930 CPU-seconds of compiling do not fit the test command's
# budget); runs alone too (about 10 minutes on a fresh machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
out=$(mktemp -d "${TMPDIR:-/tmp}/rmq-release.XXXXXX")
trap 'rm -rf "$out"' EXIT
scripts/release.sh --target x86_64 --verify --out "$out/dist"
