"""A quantizer run as a process of its own, timed and its peak memory
measured, for the benchmarks that compare tools (peers/run.py, llm/run.py).
"""
import os
import subprocess
import sys
import tempfile
import time

# Runs its arguments as a command and prints the command's peak RSS (KiB)
# and exit status. A process keeps its peak RSS across exec, so a tool
# started straight from a benchmark (which holds torch and the models, a GiB
# or more) would report at least the benchmark's size; started from this
# small interpreter (-S, about 10 MiB), it reports its own.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def first_error_line(lines):
    """The first line that mentions an error, else the last line."""
    errors = [line for line in lines if "error" in line.lower()]
    return (errors[0] if errors else lines[-1] if lines else "no output").strip()


def measured(command, timeout, telling=first_error_line, limit=300):
    """Runs `command`; returns (exit status, wall seconds, peak RSS MiB, the
    line of its stderr `telling` picks when it failed, up to `limit`
    characters). The peak is the tool's own."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, "-S", "-c", LAUNCHER, *map(str, command)],
            stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.communicate()
            return -9, time.perf_counter() - start, float("nan"), \
                f"timed out after {timeout:.0f} s"
        seconds = time.perf_counter() - start
        err.seek(0)
        lines = [line for line in
                 err.read().decode(errors="replace").splitlines()
                 if line.strip()]
    try:
        rss_kib, status = (int(v) for v in out.split())
    except ValueError:
        return process.returncode or 1, seconds, float("nan"), \
            "the launcher failed"
    message = telling(lines) if status else ""
    return status, seconds, rss_kib / 1024, message[:limit]
