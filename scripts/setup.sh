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
  # ONNX import/export: the ONNX library and protobuf; the ONNX tests export
  # torchvision models and check them with python3-onnx.
  libonnx-dev libprotobuf-dev protobuf-compiler
  python3-onnx python3-torchvision
  # The Python package: a pybind11 extension, tested with pytest.
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  # onnxruntime-node runs exported models in the integration tests.
  nodejs
)
# NodeSource's nodejs bundles npm and conflicts with Debian's npm package.
command -v npm >/dev/null 2>&1 || packages+=(npm)

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

# onnxruntime-node, pinned by test/Integration/node/package-lock.json, into
# that folder (its node_modules is git-ignored). --ignore-scripts: the
# package ships its CPU binaries; its install script only fetches GPU ones.
node_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/test/Integration/node"
if [[ ! -f "$node_dir/node_modules/onnxruntime-node/package.json" ]]; then
  echo "setup: installing onnxruntime-node in $node_dir" >&2
  (cd "$node_dir" &&
   npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
fi
