#!/usr/bin/env bash
# Installs what a fresh Debian bookworm machine lacks to build and test
# quant-qdq. Idempotent, and silent when everything is already there.
# The package list is the one in DEVELOPERS.md.
set -euo pipefail

packages=(
  # Toolchain and LLVM/MLIR 22.
  cmake ninja-build g++ make
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  # C++ unit tests.
  libgtest-dev
  # Test scripts run with the Debian interpreter; execution tests compare
  # with PyTorch.
  python3 python3-numpy python3-torch
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || {
      echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
      exit 1
    }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
