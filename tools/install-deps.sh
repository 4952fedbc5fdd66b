#!/usr/bin/env bash
# Installs the Debian packages texmem needs, only those missing.
set -euo pipefail
pkgs=(cmake make gcc pkg-config python3-glad libcriterion-dev libegl-dev libgles-dev
      libegl-mesa0 libgl1-mesa-dri valgrind
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
      clang libclang-rt-14-dev) # the fuzz targets (tools/fuzz_smoke.sh): clang 14 and its libFuzzer
missing=()
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# The aarch64 stage (tools/aarch64.sh) downloads arm64 packages into a
# private sysroot (tools/fetch_aarch64_sysroot.sh): apt must know arm64.
update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
  update=1
fi
# npm fetches the MediaPipe models and TFLite; Node (>= 20) runs the TFLite oracle.
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ $update -eq 1 ]; then
  $sudo apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "texmem: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
