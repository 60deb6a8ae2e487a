#!/usr/bin/env bash
# ONNX's C++ library (checker, shape inference, version converter, the
# schemas of every opset), built from the source distribution of the onnx
# version requirements.txt pins, against Debian's protobuf, once: the
# result is kept in a cache that outlives build folders and clones,
#   ${QUANTQDQ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quant-qdq}/onnx-<version>-<key>
# where the key changes with protobuf, the compiler and this script.
# Prints the install prefix (what CMake's find_package(ONNX) is given).
#
#   scripts/build-onnx.sh            build if missing, print the prefix
#   scripts/build-onnx.sh --prefix   print the prefix only
#
# Uses .venv (scripts/setup.sh): its pip fetches the source distribution
# and its cmake (ONNX asks for 3.26; Debian has 3.25) configures it.
# Without .venv (a `pip install .` from a clone where setup.sh made none),
# the python3 on PATH fetches it, and a cmake of 3.26 or later on PATH, or
# else requirements.txt's cmake installed into the work folder, builds it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=$(sed -n 's/^onnx==\([0-9.]*\).*/\1/p' "$root/requirements.txt")
if [[ -z "$version" ]]; then
  echo "build-onnx: requirements.txt pins no onnx version" >&2
  exit 1
fi
protobuf=$(dpkg-query -W -f='${Version}' libprotobuf-dev 2>/dev/null || true)
compiler=$(c++ --version 2>/dev/null | head -1 || true)
key=$( { echo "$protobuf"; echo "$compiler"; cat "${BASH_SOURCE[0]}"; } |
  sha256sum | cut -c1-12)
cache="${QUANTQDQ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quant-qdq}"
prefix="$cache/onnx-$version-$key"

if [[ "${1:-}" == "--prefix" || -f "$prefix/lib/cmake/ONNX/ONNXConfig.cmake" ]]; then
  echo "$prefix"
  exit 0
fi

venv="${QUANTQDQ_VENV:-$root/.venv}"
python="$venv/bin/python3"
[[ -x "$python" ]] || python=$(command -v python3 || true)
if [[ -z "$python" ]] || ! "$python" -m pip --version >/dev/null 2>&1; then
  echo "build-onnx: no python3 with pip: run scripts/setup.sh first" >&2
  exit 1
fi
pip=("$python" -m pip -q --disable-pip-version-check)

mkdir -p "$cache"
# One build at a time (make test configures two build folders); whoever
# waited finds the library built.
exec 9>"$cache/onnx.lock"
flock 9
if [[ -f "$prefix/lib/cmake/ONNX/ONNXConfig.cmake" ]]; then
  echo "$prefix"
  exit 0
fi

work=$(mktemp -d "$cache/onnx-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "build-onnx: building ONNX $version's C++ library into $prefix (once)" >&2
quiet_pip() {
  "${pip[@]}" "$@" 2>&1 |
    { grep -v "^WARNING: Location '.*' is ignored" || true; } >&2
}
quiet_pip download --no-deps --no-binary onnx "onnx==$version" -d "$work"
cmake="$venv/bin/cmake"
if [[ ! -x "$cmake" ]]; then
  cmake=$(command -v cmake || true)
  if [[ -z "$cmake" ]] || ! printf '3.26\n%s\n' "$("$cmake" --version |
      sed -n 's/^cmake version \([0-9.]*\).*/\1/p')" | sort -V -C; then
    pinned=$(sed -n 's/^cmake==\([0-9.]*\).*/\1/p' "$root/requirements.txt")
    quiet_pip install --no-deps --target "$work/cmake" "cmake==$pinned"
    cmake="$work/cmake/cmake/data/bin/cmake"  # the binary, not pip's wrapper
  fi
fi
tar -xzf "$work/onnx-$version.tar.gz" -C "$work"
# Static, position-independent (the Python extension links it), the ML
# proto (ONNX_ML: what ONNX Runtime and the exporters write), no Python
# and no tests of its own; in a namespace of its own, whose proto file and
# messages cannot meet another ONNX's in one process (Debian's torch loads
# Debian's libonnx, which registers onnx/onnx-ml.proto with the same
# protobuf: importing torch after quant_qdq aborted).
"$cmake" -S "$work/onnx-$version" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DONNX_ML=ON -DONNX_BUILD_PYTHON=OFF -DONNX_BUILD_TESTS=OFF \
  -DONNX_GEN_PB_TYPE_STUBS=OFF -DONNX_NAMESPACE=onnx_qdq \
  -DCMAKE_INSTALL_PREFIX="$work/install" \
  >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  exit 1
}
"$cmake" --build "$work/build" >"$work/build.log" 2>&1 || {
  tail -50 "$work/build.log" >&2
  exit 1
}
"$cmake" --install "$work/build" >/dev/null
rm -rf "$prefix"
mv "$work/install" "$prefix"
echo "$prefix"
