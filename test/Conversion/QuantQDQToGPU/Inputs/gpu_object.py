#!/usr/bin/env python3
"""Writes the object of the gpu.binary in an MLIR file (the output of
qdq-gpu-pipeline) to a file, decoding MLIR's string escapes: PTX text for
format=isa, a cubin for format=bin.

usage: gpu_object.py IN.mlir OUT
"""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
match = re.search(r'gpu\.binary .*?\b(?:bin|assembly) = "((?:[^"\\]|\\.)*)"', text, re.S)
if not match:
    sys.exit(f"{sys.argv[1]}: no gpu.object found")
raw = match.group(1).encode("latin-1")
out = bytearray()
i = 0
while i < len(raw):
    c = raw[i]
    if c == 0x5C:  # backslash: \\, \" or two hex digits
        nxt = raw[i + 1:i + 2]
        if nxt in (b"\\", b'"'):
            out += nxt
            i += 2
        else:
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
    else:
        out.append(c)
        i += 1
open(sys.argv[2], "wb").write(bytes(out))
