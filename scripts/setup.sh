#!/usr/bin/env bash
# Installs what a fresh Debian bookworm machine lacks to build and test
# quant-qdq. Idempotent, and silent when everything is already there.
# The package list is the one in DEVELOPERS.md.
set -euo pipefail

packages=(
  # Toolchain and LLVM/MLIR 22.
  cmake ninja-build g++ make
  # Compiles cached across build folders: the wheel's (pyproject.toml)
  # reuses build/'s objects.
  ccache
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22
  # The OpenMP runtime the CPU engine's parallel loops run on.
  libomp-22-dev
  # libFuzzer and the sanitizer runtimes (make fuzz, make sanitize).
  libclang-rt-22-dev
  # C++ unit tests.
  libgtest-dev
  # Test scripts run with the Debian interpreter; execution tests compare
  # with PyTorch.
  python3 python3-numpy python3-torch
  # ONNX import/export: protobuf, which the ONNX library scripts/build-onnx.sh
  # builds links; the ONNX tests export torchvision models.
  libprotobuf-dev protobuf-compiler
  python3-onnx python3-torchvision
  # .npz calibration data (zip archives, inflated with zlib).
  zlib1g-dev
  # The Python package: a pybind11 extension, tested with pytest.
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  # The environment of requirements.txt (ONNX Runtime, the peers).
  python3-venv
  # What TensorFlow needs that Debian packages (requirements.txt says why).
  python3-requests python3-six python3-astunparse python3-attr
  # What pandas (Intel Neural Compressor's, requirements.txt) needs.
  python3-dateutil
  # Graph pictures: make demo's placement, the docs' figures.
  graphviz
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

# The Python packages of requirements.txt (ONNX Runtime, the peers), pinned
# and complete, in .venv: Debian's python3 with Debian's site-packages
# visible (torch, torchvision, pytest), so that the build's Python extension
# and every test script run in one interpreter. Reinstalled when the file
# changes; --no-deps because the file is the whole closure.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/requirements.sha256"
want=$(sha256sum "$root/requirements.txt" | cut -d' ' -f1)
if [[ ! -x "$venv/bin/python3" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "setup: installing requirements.txt into $venv" >&2
  [[ -x "$venv/bin/python3" ]] ||
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  # (This machine's pip configuration names local indexes that lack most
  # projects; pip warns about each, which says nothing here.)
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check \
    --no-deps -r "$root/requirements.txt" 2>&1 |
    { grep -v "^WARNING: Location '.*' is ignored" || true; } >&2
  echo "$want" > "$stamp"
fi

# ONNX's C++ library at the pinned onnx version, built once into a cache
# (a few minutes the first time; nothing after).
"$root/scripts/build-onnx.sh" >/dev/null
