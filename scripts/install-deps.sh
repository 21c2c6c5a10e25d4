#!/usr/bin/env bash
# Installs the Debian packages mpilift needs to build and test itself.
# Idempotent: only packages that are missing are installed, and when all are
# present it returns without touching the network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build python3 pkg-config
  clang-19 libclang-19-dev llvm-19-dev llvm-19-tools clang-tools-19
  libclang-rt-19-dev
  libopenmpi-dev openmpi-bin
  libotf2-trace-dev otf2-tools
  libgtest-dev
  neovim
  clang-tidy-19 clang-tidy
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [ "$status" != "installed" ]; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
