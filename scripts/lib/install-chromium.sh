#!/usr/bin/env bash
# Chromium from Debian's package, unpacked into target/tools/chromium with the shared libraries it
# needs that a server image lacks (apt-get download + dpkg -x: nothing is installed on the machine;
# `apt-get install chromium` would pull 130 packages and upgrade perl). Prints the path of a
# wrapper that runs it headless with those libraries. The page test (scripts/lib/check_page.py)
# uses it.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=target/tools/chromium
# Audio, codecs and image formats chromium links against (found by ldd on a bare Debian 12).
packages=(chromium chromium-common libflac12 libxnvctrl0 libdouble-conversion3 libharfbuzz-subset0 libminizip1
  libopenh264-7 libopenjp2-7 libopus0 libpulse0 libogg0 libasyncns0 libsndfile1 libvorbis0a libvorbisenc2 libmpg123-0 libmp3lame0)
if [[ ! -x $dir/chromium-headless ]]; then
  rm -rf "$dir" && mkdir -p "$dir/debs"
  # A fresh machine's package lists may not name the packages yet.
  if ! (cd "$dir/debs" && apt-get download -qq -o APT::Sandbox::User=root "${packages[@]}") >&2; then
    apt-get update -qq >&2
    (cd "$dir/debs" && apt-get download -qq -o APT::Sandbox::User=root "${packages[@]}") >&2
  fi
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
  rm -rf "$dir/debs"
  root=$PWD/$dir/root
  cat > "$dir/chromium-headless" <<WRAPPER
#!/usr/bin/env bash
# No sandbox: the tests run as root in a container, where chromium's sandbox cannot start.
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/pulseaudio:$root/usr/lib/chromium\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$root/usr/lib/chromium/chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars "\$@"
WRAPPER
  chmod +x "$dir/chromium-headless"
fi
echo "$PWD/$dir/chromium-headless"
