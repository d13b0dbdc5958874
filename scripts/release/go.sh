#!/usr/bin/env bash
# The Go module as `go get` fetches it, with the C library inside: prebuilt static libraries per
# platform (lib/linux_amd64, lib/linux_arm64, built for glibc 2.17) and the C header, linked by
# cgo.go's per-platform #cgo lines. Why prebuilt and not pkg-config: `go get` then needs nothing
# installed first, as rocketmq-client-go users expect of a dependency; the cost is the archives'
# size in the module zip. The module differs from the checkout's bindings/go in cgo.go only (the
# checkout links the workspace's own build), plus lib/ and include/; a platform not shipped gets a
# compile error that names the platforms shipped. Written as a module proxy folder,
# OUT_DIR/goproxy (GOPROXY=file://OUT_DIR/goproxy serves it), by scripts/release/gomodzip.
# Usage: scripts/release/go.sh OUT_DIR ARCH=BUILT_DIR...  (BUILT_DIR from scripts/release/native.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(realpath -m "${1:?usage: scripts/release/go.sh OUT_DIR ARCH=BUILT_DIR...}")"
shift
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
module="$(sed -n 's/^module //p' bindings/go/go.mod)"
stage="$PWD/target/release-stage/go-module"
rm -rf "$stage"
mkdir -p "$stage/include"
git ls-files bindings/go | while read -r f; do install -D -m 0644 "$f" "$stage/${f#bindings/go/}"; done
install -m 0644 include/rocketmq_rebalance.h "$stage/include/"
platforms=()
ldflags=""
for pair in "$@"; do
  arch="${pair%%=*}"
  built="${pair#*=}"
  case "$arch" in x86_64) goarch=amd64 ;; aarch64) goarch=arm64 ;; *) echo "no Go arch for $arch" >&2; exit 2 ;; esac
  strip_tool="strip"
  [[ $arch == aarch64 ]] && strip_tool=aarch64-linux-gnu-strip
  install -D -m 0644 "$built/librocketmq_rebalance.a" "$stage/lib/linux_$goarch/librocketmq_rebalance.a"
  "$strip_tool" --strip-debug "$stage/lib/linux_$goarch/librocketmq_rebalance.a"
  platforms+=("linux/$goarch")
  ldflags+="#cgo linux,$goarch LDFLAGS: \${SRCDIR}/lib/linux_$goarch/librocketmq_rebalance.a -lgcc_s -lutil -lrt -lpthread -lm -ldl"$'\n'
done
python3 - "$stage/cgo.go" "$ldflags" <<'PY'
import sys
path, ldflags = sys.argv[1], sys.argv[2]
s = open(path).read()
head = s[: s.index("/*")]
cflags = "#cgo CFLAGS: -I${SRCDIR}/../../include\n"
old_ld = s[s.index("#cgo LDFLAGS:"):]
old_ld = old_ld[: old_ld.index("\n") + 1]
if cflags not in s or not old_ld:
    sys.exit("cgo.go has no longer the #cgo lines this script replaces")
body = s[len(head):].replace(cflags, "#cgo CFLAGS: -I${SRCDIR}/include\n").replace(old_ld, ldflags)
head = ("package rmqrebalance\n\n// The C library, linked statically from the archives this module carries in lib/<GOOS>_<GOARCH>\n"
        "// (built for glibc 2.17 and later). The libraries after the archive are what the Rust runtime\n// needs on Linux.\n\n")
open(path, "w").write(head + body)
PY
constraint=""
for p in "${platforms[@]}"; do constraint+="${constraint:+ || }(${p%/*} && ${p#*/})"; done
# One platform: gofmt wants !(linux && amd64), not !((linux && amd64)).
[[ ${#platforms[@]} -eq 1 ]] && constraint="${constraint:1:${#constraint}-2}"
joined=$(printf '%s\n' "${platforms[@]}" | tr / _ | paste -sd' ' | sed 's/ /_and_/g')
cat > "$stage/unsupported_platform.go" <<GO
//go:build !($constraint)

package rmqrebalance

// This module carries the C library for ${platforms[*]} only: on any other platform the
// build stops here, on a name that says so.
var _ = rocketmq_rebalance_ships_prebuilt_libraries_for_${joined}_only
GO
unformatted=$(gofmt -l "$stage")  # fails on a syntax error too
[[ -z $unformatted ]] || { echo "the staged module is not gofmt-clean: $unformatted" >&2; exit 1; }
(cd scripts/release/gomodzip && go run . -dir "$stage" -module "$module" -version "v$version" -proxy "$out/goproxy" \
  -time "$(git log -1 --format=%ct 2>/dev/null || echo 0)")
echo "$out/goproxy"
