#!/usr/bin/env bash
# An arm64 Debian root of our own, target/release-tools/arm64-sysroot, holding CPython 3.11 and a
# Java 17 runtime for arm64 and the libraries they load, unpacked from Debian's packages (apt-get
# download + dpkg -x: nothing is installed on this machine). qemu-user runs its programs with
# `qemu-aarch64 -L SYSROOT SYSROOT/usr/bin/python3.11`. Absolute symbolic links inside it are made
# relative, so that they resolve inside it and not on this machine. Prints its path.
# Usage: scripts/release/arm64-sysroot.sh   (needs dpkg's arm64 architecture: scripts/release/tools.sh --aarch64)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD/target/release-tools/arm64-sysroot"
packages=(libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 libuuid1
  libcrypt1 libsqlite3-0 libtinfo6 libncursesw6 libreadline8 libnsl2 libtirpc3 libgssapi-krb5-2 libkrb5-3
  libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1 libdb5.3
  python3.11-minimal libpython3.11-minimal libpython3.11-stdlib openjdk-17-jre-headless)
stamp="$root/.packages-$(echo "${packages[*]}" | md5sum | cut -c1-12)"
if [[ ! -f $stamp ]]; then
  rm -rf "$root" "$root.debs"
  mkdir -p "$root.debs"
  (cd "$root.debs" && apt-get download -qq -o APT::Sandbox::User=root "${packages[@]/%/:arm64}") >&2
  for deb in "$root.debs"/*.deb; do dpkg -x "$deb" "$root"; done
  # Debian's /lib and friends are links into /usr; make them so here too (usrmerge).
  for d in lib bin sbin; do [[ -e $root/$d ]] || ln -s "usr/$d" "$root/$d"; done
  while IFS= read -r link; do
    target=$(readlink "$link")
    rel=$(realpath -m --relative-to="$(dirname "$link")" "$root$target")
    ln -sfn "$rel" "$link"
  done < <(find "$root" -type l -lname '/*')
  rm -rf "$root.debs"
  touch "$stamp"
fi
echo "$root"
