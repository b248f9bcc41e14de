#!/usr/bin/env python3
"""Whole processes, side by side: `lawsuite call flow/grep` against `rg -j2`.

Each query kind runs as alternating pairs (portable first in odd pairs, `rg`
first in even ones), so a drift in the machine's load falls on both. Every
run is timed from spawn to reap: wall clock from a monotonic clock, CPU as
user + system time from `wait4` (microseconds, unlike the 10 ms ticks of
`/usr/bin/time`). Both write their answer to a file: on `/dev/null`, `rg`
stops at its first match, which is a different search.

The ratios printed are medians of the per-pair ratios portable / rg, with
the load average at the start and the end: quote them with the load.

    python3 benches/whole_process.py                       # the cargo registry, 9 pairs
    python3 benches/whole_process.py --root ~/src --runs 15
    python3 benches/whole_process.py --lawsuite target/release/lawsuite --rg rg

`rg` gets the `ripgrep` peer's host-independence flags; `lawsuite call` asks
as a caller of the contract does, so the default limit (200) and symbols
apply. Standard library only.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The `ripgrep` peer's host-independence flags (`HOST_INDEPENDENCE` in
# src/ripgrep/mod.rs) and `--no-messages`, as the issue measured `rg`.
RG_FLAGS = [
    "--no-config",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-parent",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--no-messages",
    "-j2",
]

# (name, the caller's request without its root, rg's arguments before the root)
KINDS = [
    ("rare literal", {"pattern": "QuuxRareToken", "fixedStrings": True}, ["-n", "-F", "QuuxRareToken"]),
    ("case-insensitive", {"pattern": "todo", "ignoreCase": True}, ["-n", "-i", "todo"]),
    ("inner-literal regex", {"pattern": "[a-z]+_handler\\.[a-z]+"}, ["-n", "[a-z]+_handler\\.[a-z]+"]),
    ("alternation", {"pattern": "_handler|TODO|QuuxRare"}, ["-n", "_handler|TODO|QuuxRare"]),
    ("globbed search", {"pattern": "TODO", "globs": ["*.rs"]}, ["-n", "-g", "*.rs", "TODO"]),
]


def registry():
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    dirs = sorted(d for d in glob.glob(os.path.join(home, "registry", "src", "*")) if os.path.isdir(d))
    return dirs[0] if dirs else None


def timed(argv, out):
    """(wall seconds, CPU seconds, exit code) of one whole process."""
    with open(out, "wb") as sink:
        start = time.monotonic()
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, child.returncode


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=registry(), help="the tree to search (default: the cargo registry's sources)")
    parser.add_argument("--runs", type=int, default=9, help="pairs per kind (default 9)")
    parser.add_argument("--lawsuite", default="lawsuite", help="the lawsuite binary")
    parser.add_argument("--rg", default="rg", help="the rg binary")
    args = parser.parse_args()
    if not args.root or not os.path.isdir(args.root):
        sys.exit("no tree to search: give --root DIR (the default, the cargo registry's sources, is missing)")
    root = os.path.abspath(args.root)
    out = os.path.join(tempfile.mkdtemp(prefix="lawsuite-whole-process-"), "answer")
    print(f"root {root}; {args.runs} alternating pairs per kind; load average {load()} at the start")
    print()
    print("| kind | portable wall / CPU (ms) | rg wall / CPU (ms) | wall portable/rg | CPU portable/rg |")
    print("| --- | --- | --- | --- | --- |")
    for name, request, rg_args in KINDS:
        portable = [args.lawsuite, "call", "flow/grep", json.dumps(dict(request, root=root))]
        rg = [args.rg, *RG_FLAGS, *rg_args, root]
        for argv in (portable, rg):  # one untimed warm-up each
            code = timed(argv, out)[2]
            if argv is portable and code != 0:
                sys.exit(f"{' '.join(argv)} failed with exit status {code}")
        a_runs, b_runs = [], []
        for i in range(args.runs):
            order = [(portable, a_runs), (rg, b_runs)]
            for argv, runs in order if i % 2 == 0 else reversed(order):
                runs.append(timed(argv, out)[:2])
        wall = statistics.median(a[0] / b[0] for a, b in zip(a_runs, b_runs))
        cpu = statistics.median(a[1] / b[1] for a, b in zip(a_runs, b_runs) if b[1] > 0)
        med = lambda runs, k: statistics.median(r[k] for r in runs) * 1e3
        print(
            f"| {name} | {med(a_runs, 0):.1f} / {med(a_runs, 1):.1f} | {med(b_runs, 0):.1f} / {med(b_runs, 1):.1f} "
            f"| {wall:.2f} | {cpu:.2f} |"
        )
    print()
    print(f"load average {load()} at the end")
    os.remove(out)
    os.rmdir(os.path.dirname(out))


if __name__ == "__main__":
    main()
