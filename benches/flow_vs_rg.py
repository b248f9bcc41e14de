#!/usr/bin/env python3
"""What a caller pays: `lawsuite call` on the flows (and the seam) against `rg -j2`.

Issue 47's table. A caller of the contract asks `flow/grep` and `flow/glob`,
not the seam, so this times whole processes as a caller runs them:
`lawsuite call flow/grep '{...}'` (the `portable` peer, the flow layer with its
literal retry, the default limit and symbols) against the `rg -j2` command that
searches the same files for the same lines. `grep` rows time the seam itself
(one search, no retry) for comparison.

Each query kind runs as paired runs (lawsuite first in odd pairs, `rg` first in
even ones), after one untimed warm-up each, so a drift in the machine's load
falls on both. Every run is timed from spawn to reap: CPU as user + system
time from `wait4` (microseconds; every thread of the process, and `rg`'s
threads), wall clock from a monotonic clock. Both write their answer to a
file: on `/dev/null`, `rg` stops at its first match, a different search.

The figure to quote is the median of the per-pair CPU ratios lawsuite / rg,
with the load average printed on every row (`/proc/loadavg`'s 1-minute
figure before and after the row's pairs): CPU time still measures the work
when other processes share the cores, wall time mostly measures the
scheduler.

    python3 benches/flow_vs_rg.py                                   # both default trees, 9 pairs
    python3 benches/flow_vs_rg.py --lawsuite target/release/lawsuite --pairs 15
    python3 benches/flow_vs_rg.py --tree src=$HOME/src --kind glob_py
    python3 benches/flow_vs_rg.py --before /tmp/lawsuite-old       # a column for another binary

The default trees are the running Python's installation (`sys.base_prefix`)
and the cargo registry's sources (`$CARGO_HOME/registry/src`), searched in
place, read only. `rg` gets the `ripgrep` peer's host-independence flags, so
both read only the tree's own `.gitignore` files. Standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The `ripgrep` peer's host-independence flags (`HOST_INDEPENDENCE` in
# src/ripgrep/mod.rs), `--no-messages` and two threads, as issue 47 measured.
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

# (name, lawsuite method, the request without its root, rg's arguments before the root)
KINDS = [
    # A regex that matches nothing: through the flow, §18 retries it
    # literally (the literal finds nothing either).
    ("nomatch_inner", "flow/grep", {"pattern": r"[a-z]+_handler\.[a-z]+zzq"}, ["-n", r"[a-z]+_handler\.[a-z]+zzq"]),
    ("nomatch_inner_seam", "grep", {"pattern": r"[a-z]+_handler\.[a-z]+zzq"}, ["-n", r"[a-z]+_handler\.[a-z]+zzq"]),
    ("nomatch_suffix", "flow/grep", {"pattern": "[a-z]+_handlerzzq"}, ["-n", "[a-z]+_handlerzzq"]),
    ("nomatch_no_literal", "flow/grep", {"pattern": "[A-Z]{3}[0-9]{6}[a-z]{3}[0-9]"}, ["-n", "[A-Z]{3}[0-9]{6}[a-z]{3}[0-9]"]),
    ("nomatch_alternation", "flow/grep", {"pattern": "zzq_handler|QQZ_TODO|xyzzyq"}, ["-n", "zzq_handler|QQZ_TODO|xyzzyq"]),
    # A regex whose only literal is one byte, and the same shape with a
    # strong literal: what a weak literal costs.
    ("one_byte_literal", "flow/grep", {"pattern": "[a-z]{3}[A-Z]{4}[A-Z]{3}q"}, ["-n", "[a-z]{3}[A-Z]{4}[A-Z]{3}q"]),
    ("strong_literal", "flow/grep", {"pattern": "[a-z]{3}[A-Z]{4}[A-Z]{3}_handler"}, ["-n", "[a-z]{3}[A-Z]{4}[A-Z]{3}_handler"]),
    # Matches: the first 200 returned (the default limit), all counted.
    ("inner_literal", "flow/grep", {"pattern": r"[a-z]+_[a-z]+\.[a-z]+"}, ["-n", r"[a-z]+_[a-z]+\.[a-z]+"]),
    ("rare_literal", "flow/grep", {"pattern": "QuuxRareToken", "fixedStrings": True}, ["-n", "-F", "QuuxRareToken"]),
    # Listings: 1,000 returned (the cap), all counted.
    ("glob_py", "flow/glob", {"pattern": "**/*.py"}, ["--files", "-g", "**/*.py"]),
    ("glob_rs", "flow/glob", {"pattern": "**/*.rs"}, ["--files", "-g", "**/*.rs"]),
]


def default_trees():
    trees = [("python", sys.base_prefix)]
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    trees.append(("cargo-registry", os.path.join(home, "registry", "src")))
    return [(name, path) for name, path in trees if os.path.isdir(path)]


def timed(argv, out):
    """(wall seconds, CPU seconds, exit code) of one whole process."""
    with open(out, "wb") as sink:
        start = time.monotonic()
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                        help="a tree to search (repeatable; default: the Python installation and the cargo registry)")
    parser.add_argument("--pairs", type=int, default=9, help="paired runs per kind and binary (default 9)")
    parser.add_argument("--lawsuite", default="lawsuite", help="the lawsuite binary (default: on PATH)")
    parser.add_argument("--before", help="another lawsuite binary, timed in the same pairs (a before/after table)")
    parser.add_argument("--rg", default="rg", help="the rg binary")
    parser.add_argument("--kind", action="append", default=[], help="only these kinds (repeatable)")
    args = parser.parse_args()

    trees = [tuple(t.split("=", 1)) for t in args.tree] or default_trees()
    if not trees:
        sys.exit("no tree to search: give --tree NAME=DIR")
    kinds = [k for k in KINDS if not args.kind or k[0] in args.kind]
    if not kinds:
        sys.exit("no such kind; the kinds are " + ", ".join(k[0] for k in KINDS))
    binaries = [("after", args.lawsuite)] + ([("before", args.before)] if args.before else [])
    workdir = tempfile.mkdtemp(prefix="lawsuite-flow-vs-rg-")
    out = os.path.join(workdir, "answer")
    # `lawsuite call` runs in an empty directory, so no project file is read.
    os.chdir(workdir)

    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    print(f"{os.cpu_count()} CPUs ({model}); {args.pairs} pairs per row; rg: "
          + subprocess.run([args.rg, "--version"], capture_output=True, text=True).stdout.splitlines()[0])
    for label, binary in binaries:
        print(f"{label}: {binary}")
    print(f"load average at the start: {open('/proc/loadavg').read().strip()}")
    print()
    columns = " | ".join(f"{label} CPU / rg CPU" for label, _ in binaries)
    print(f"| tree | kind | method | rg CPU ms | {' | '.join(label + ' CPU ms' for label, _ in binaries)} | {columns} | load |")
    print("| --- | --- | --- | --- |" + " --- |" * (2 * len(binaries)) + " --- |")
    for tree, root in trees:
        root = os.path.abspath(os.path.expanduser(root))
        for name, method, request, rg_args in kinds:
            params = json.dumps(dict(request, root=root))
            if method == "grep":
                # The seam takes a normalised input: every field given.
                params = json.dumps(dict(
                    {"pattern": "", "root": root, "fixedStrings": False, "ignoreCase": False,
                     "smartCase": False, "globs": [], "beforeContext": 0, "afterContext": 0,
                     "filesWithMatches": False, "hidden": False, "noIgnore": False, "symbols": True,
                     "limit": 200}, **request))
            contestants = [[b, "call", method, params] for _, b in binaries]
            rg = [args.rg, *RG_FLAGS, *rg_args, root]
            for argv in contestants + [rg]:  # one untimed warm-up each
                code = timed(argv, out)[2]
                if argv is not rg and code != 0:
                    sys.exit(f"{' '.join(argv)} failed with exit status {code}")
            runs = [[] for _ in contestants]
            rg_runs = []
            load_start = load1()
            for i in range(args.pairs):
                order = [(argv, runs[j]) for j, argv in enumerate(contestants)] + [(rg, rg_runs)]
                for argv, into in (order if i % 2 == 0 else reversed(order)):
                    into.append(timed(argv, out)[:2])
            load_end = load1()
            rg_cpu = statistics.median(r[1] for r in rg_runs) * 1e3
            cpus = [f"{statistics.median(r[1] for r in rs) * 1e3:.1f}" for rs in runs]
            ratios = [f"{statistics.median(a[1] / b[1] for a, b in zip(rs, rg_runs) if b[1] > 0):.2f}" for rs in runs]
            print(f"| {tree} | {name} | {method} | {rg_cpu:.1f} | {' | '.join(cpus)} | {' | '.join(ratios)} "
                  f"| {load_start:.2f}–{load_end:.2f} |", flush=True)
    print()
    print(f"load average at the end: {open('/proc/loadavg').read().strip()}")
    print("CPU = user + system time of the whole process (wait4), median of the pairs; "
          "ratio = median of the per-pair ratios")
    os.remove(out)
    os.rmdir(workdir)


if __name__ == "__main__":
    main()
