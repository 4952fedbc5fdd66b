#!/usr/bin/env bash
# An arm64 root for the aarch64 cross build and its tests under qemu-user:
# the arm64 Debian packages of libc, Criterion (headers, library and what it
# needs) and Mesa's EGL/GLES with llvmpipe (for the GL tests that run under
# qemu; the GL backend dlopens libEGL.so.1), about 240 MB unpacked with dpkg -x into ~/.cache/texmem/aarch64-sysroot
# (or $TEXMEM_AARCH64_SYSROOT). Unpacked, not installed: libnanomsg5 is not
# multi-arch, so libcriterion-dev cannot be installed for amd64 and arm64 at
# once. Needs `dpkg --add-architecture arm64` (tools/install-deps.sh does it).
# Idempotent: does nothing when the sysroot holds this package list.
set -euo pipefail
root=${TEXMEM_AARCH64_SYSROOT:-$HOME/.cache/texmem/aarch64-sysroot}
pkgs=(libc6 libgcc-s1 libcriterion-dev libcriterion3 libffi8 libgit2-1.5 libnanomsg5 libcom-err2
      libgssapi-krb5-2 libhttp-parser2.9 libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0
      libmbedcrypto7 libmbedtls14 libmbedx509-1 libpcre2-8-0 libssh2-1 libssl3 zlib1g
      libegl1 libegl-mesa0 libgles2 libglvnd0 libgl1-mesa-dri libglapi-mesa libgbm1 libllvm15
      libdrm2 libdrm-amdgpu1 libdrm-nouveau2 libdrm-radeon1 libbsd0 libmd0 libedit2 libelf1
      libexpat1 libicu72 liblzma5 libsensors5 libstdc++6 libtinfo6 libwayland-client0
      libwayland-server0 libx11-6 libx11-xcb1 libxau6 libxcb1 libxcb-dri2-0 libxcb-dri3-0
      libxcb-present0 libxcb-randr0 libxcb-sync1 libxcb-xfixes0 libxdmcp6 libxml2 libxshmfence1
      libz3-4 libzstd1)
stamp="${pkgs[*]}"
if [ -f "$root/.texmem-packages" ] && [ "$(cat "$root/.texmem-packages")" = "$stamp" ]; then
  exit 0
fi
echo "texmem: unpacking arm64 packages into $root" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
download() { (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "${pkgs[@]/%/:arm64}"); }
# A stale package index names versions the mirror no longer has: update once.
if ! download; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  download
fi
rm -rf "$root"
mkdir -p "$root"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$root"; done
# Debian's criterion.pc names boxfort, libffi, libgit2 and nanomsg .pc files
# (Requires.private) that the sysroot lacks; the shared library is all the
# tests link, so a plain one replaces it.
pcdir=$root/usr/lib/aarch64-linux-gnu/pkgconfig
mkdir -p "$pcdir"
cat >"$pcdir/criterion.pc" <<'PC'
prefix=/usr
includedir=${prefix}/include
libdir=${prefix}/lib/aarch64-linux-gnu

Name: criterion
Description: Criterion (arm64, unpacked by tools/fetch_aarch64_sysroot.sh)
Version: 2.4.1
Libs: -L${libdir} -lcriterion
Cflags: -I${includedir}
PC
echo "$stamp" >"$root/.texmem-packages"
