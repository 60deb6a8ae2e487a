# edit_manifest.py IN OUT STATEMENT: runs STATEMENT (Python) with the manifest
# bound to m and writes the result; the malformed cases of
# gpu-bench-dry-run.test are one-line edits of the valid fixture.
import json
import sys

m = json.load(open(sys.argv[1]))
exec(sys.argv[3])
with open(sys.argv[2], "w") as f:
    json.dump(m, f, indent=1)
