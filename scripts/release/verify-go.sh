#!/usr/bin/env bash
# The Go module as `go get` fetches it: a new module in a folder outside the checkout gets it from
# dist/goproxy (GOPROXY=file://..., its dependencies from this machine's module cache or the
# proxy), with a module cache of its own (so nothing built before is reused), builds with cgo and
# runs; its answer must equal the C example's (WORK/../c-ARCH/answer.txt); then the module's own
# tests, built from the fetched copy, over the checkout's vector files. aarch64: cross-built
# with zig as the C compiler (glibc 2.17) and run under qemu-user.
# Usage: scripts/release/verify-go.sh DIST_DIR ARCH WORK
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="$1" arch="$2" work="$3"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
module="$(sed -n 's/^module //p' bindings/go/go.mod)"
fail() { echo "release verify (Go, $arch): $*" >&2; exit 1; }
root=$PWD
echo "-- $arch: the Go module"
rm -rf "$work"
mkdir -p "$work/app"
cp scripts/release/verify-go/main.go.txt "$work/app/main.go"
cache=$(go env GOMODCACHE)
export GOMODCACHE="$work/modcache" GOFLAGS="-mod=mod -modcacherw" GONOSUMDB="$module"
upstream=$(go env GOPROXY)
export GOPROXY="file://$dist/goproxy,file://$cache/cache/download,$upstream"
cd "$work/app"
go mod init example.com/release-user > /dev/null 2>&1
go get "$module@v$version" > /dev/null 2>&1 || { go get "$module@v$version"; fail "go get failed"; }
go mod tidy > /dev/null 2>&1
case "$arch" in
  x86_64) go build -o app . ; run=() ;;
  aarch64) CGO_ENABLED=1 GOARCH=arm64 CC="python3 -m ziglang cc -target aarch64-linux-gnu.2.17" go build -o app . ; run=(qemu-aarch64) ;;
esac
"${run[@]}" ./app > answer.txt || fail "the program failed"
cmp -s answer.txt "$work/../c-$arch/answer.txt" || fail "Go answers $(cat answer.txt); C answered $(cat "$work/../c-$arch/answer.txt")"
echo "  fetched by go get from the module proxy folder, built with cgo, ran: the C example's answer"
# The module's own tests, as fetched (Java-answered vectors, goroutines, errors, the adapter); the
# vector files are the checkout's (RMQ_CHECKOUT), the module carries none.
case "$arch" in
  x86_64) go test -c -o module.test "$module" ;;
  aarch64) CGO_ENABLED=1 GOARCH=arm64 CC="python3 -m ziglang cc -target aarch64-linux-gnu.2.17" go test -c -o module.test "$module" ;;
esac
RMQ_CHECKOUT="$root" "${run[@]}" ./module.test -test.count=1 > tests.txt 2>&1 || { cat tests.txt >&2; fail "the module's tests failed"; }
grep -q "^PASS$" tests.txt || fail "the module's tests: $(tail -3 tests.txt)"
echo "  the module's own tests, built from the fetched module: PASS"
