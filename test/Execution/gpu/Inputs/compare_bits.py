# Compares .npy arrays bit for bit: compare_bits.py A B [A B ...]. Floats are
# compared as their bit patterns (NaN payloads and the sign of zero count).
# Prints one line per pair; exits 1 at the first pair that differs.
import sys

import numpy as np


def main():
    paths = sys.argv[1:]
    if not paths or len(paths) % 2:
        sys.exit("usage: compare_bits.py A B [A B ...]")
    for a_path, b_path in zip(paths[0::2], paths[1::2]):
        a, b = np.load(a_path), np.load(b_path)
        name = "%s vs %s" % (a_path.rsplit("/", 1)[-1], b_path.rsplit("/", 1)[-1])
        if a.dtype != b.dtype or a.shape != b.shape:
            sys.exit("%s: %s%s against %s%s" % (name, a.dtype, a.shape,
                                                b.dtype, b.shape))
        bits = np.dtype("u%d" % a.dtype.itemsize)
        ua, ub = a.reshape(-1).view(bits), b.reshape(-1).view(bits)
        diff = np.flatnonzero(ua != ub)
        if diff.size:
            print("%s: %d of %d elements differ" % (name, diff.size, a.size))
            for i in diff[:10]:
                index = np.unravel_index(i, a.shape)
                print("  at %s: %r (0x%x) against %r (0x%x)" % (
                    tuple(int(j) for j in index), a.reshape(-1)[i], ua[i],
                    b.reshape(-1)[i], ub[i]))
            sys.exit(1)
        print("%s: %d elements bit-identical (%s)" % (name, a.size, a.dtype))


main()
