#!/usr/bin/env bash
# Insertion cost per layer at 10^3, 10^4 and 10^5 layers, against the cost of
# parsing and printing the same file, all from qdq-opt's own --mlir-timing in
# one process. Usage: bench/insertion/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
opt=$build/bin/qdq-opt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%8s %10s %12s %12s %12s %10s\n' layers "file MB" "parse us/l" "insert us/l" "print us/l" "ins/(p+p)"
for n in 1000 10000 100000; do
  python3 "$here/gen_residual_net.py" $n > "$tmp/net.mlir" 2>/dev/null
  layers=$(grep -c '= quant_qdq\.' "$tmp/net.mlir")
  mb=$(du -m "$tmp/net.mlir" | cut -f1)
  # Best of three runs of each phase.
  best_parse=inf; best_insert=inf; best_print=inf
  for _ in 1 2 3; do
    "$opt" "$tmp/net.mlir" --insert-qdq=resnet-v1 --mlir-timing \
        --mlir-timing-display=list -o "$tmp/out.mlir" 2> "$tmp/timing.txt"
    read -r parse insert print < <(python3 - "$tmp/timing.txt" <<'PY'
import re, sys
wall = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+(.*\S)\s*$", line)
    if m:
        wall[m.group(2)] = float(m.group(1))
print(wall.get("Parser", 0), wall.get("InsertQDQ", 0), wall.get("Output", 0))
PY
)
    best_parse=$(python3 -c "print(min(float('$best_parse'), $parse))")
    best_insert=$(python3 -c "print(min(float('$best_insert'), $insert))")
    best_print=$(python3 -c "print(min(float('$best_print'), $print))")
  done
  python3 - "$layers" "$mb" "$best_parse" "$best_insert" "$best_print" <<'PY'
import sys
layers, mb = int(sys.argv[1]), sys.argv[2]
parse, insert, prnt = map(float, sys.argv[3:6])
us = lambda s: s * 1e6 / layers
print(f"{layers:8d} {mb:>10} {us(parse):12.2f} {us(insert):12.2f} {us(prnt):12.2f} {insert / (parse + prnt):10.2f}")
PY
done
