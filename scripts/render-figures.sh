#!/usr/bin/env bash
# Redraws the placement pictures of docs/ from the seed-figure test network
# with the tool itself (qdq-opt, qdq-translate --qdq-to-dot) and Graphviz.
# Usage: scripts/render-figures.sh [build-dir]   (needs the graphviz package)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
net=$root/test/Transforms/InsertQDQ/seed-figures.mlir
out=$root/docs/images
command -v dot >/dev/null || { echo "render-figures: install graphviz" >&2; exit 1; }
mkdir -p "$out"

draw() { # name, qdq-opt flags...
  local name=$1
  shift
  "$build/bin/qdq-opt" "$net" "$@" |
    "$build/bin/qdq-translate" --qdq-to-dot | dot -Tsvg -o "$out/$name.svg"
}
draw placement-default --insert-qdq
draw placement-spec-add --insert-qdq \
  --qdq-spec="$root/test/Transforms/InsertQDQ/Inputs/add-class.json"
draw placement-resnet-v1 --insert-qdq=resnet-v1
echo "wrote $out/placement-{default,spec-add,resnet-v1}.svg"
