#!/usr/bin/env bash
# What `lawsuite diff` (and so `run --baseline`, which reads the baseline
# and diffs the same way) costs on results of 100,000 trials: two
# synthetic `--format jsonl` files of N law trials each (2 % of the
# verdicts flipped between them, every failure with a one-line report),
# then `lawsuite diff` timed by GNU time: wall seconds and peak memory.
#
#   benches/diff_scale.sh            # N = 100000
#   benches/diff_scale.sh 1000000
#
# LAWSUITE: the binary (default: target/release/lawsuite, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
lawsuite=${LAWSUITE:-$(pwd)/target/release/lawsuite}
if [ ! -x "$lawsuite" ]; then
  cargo build --release --bin lawsuite --quiet
fi
version=$("$lawsuite" --version | awk '{print $2}')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$n" "$version" <<'PY'
import json, sys
work, n, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def write(name, flip):
    counts = {"pass": 0, "fail": 0, "expectedFailure": 0, "unexpectedPass": 0, "skipped": 0, "broken": 0}
    with open(f"{work}/{name}", "w") as f:
        f.write(json.dumps({"type": "run", "lawsuite": version, "project": "synthetic", "reference": "portable",
                            "peers": [{"name": "portable", "version": version, "ground": "full"},
                                      {"name": "mine", "version": "1", "ground": "shared"}],
                            "started": 0, "machine": "synthetic", "trials": n}) + "\n")
        for i in range(n):
            failing = (i % 10 == 0) != (flip and i % 50 == 7)
            o = {"type": "outcome", "id": f"law::area{i % 40}::file{i % 400}::law-{i}::mine",
                 "item": f"law::area{i % 40}::file{i % 400}::law-{i}", "kind": "law", "peer": "mine",
                 "spec": f"search-contract §{i % 20}", "seconds": 0.001}
            if failing:
                o["verdict"] = "fail"
                o["report"] = {"summary": "the answer differs from the expected one in paths", "cases": []}
                counts["fail"] += 1
            else:
                o["verdict"] = "pass"
                counts["pass"] += 1
            f.write(json.dumps(o) + "\n")
        f.write(json.dumps({"type": "summary", "byKind": {"law": counts}, "byPeer": {"mine": counts},
                            "bySection": {}, "divergentCalls": 0, "comparedCalls": 0, "seeds": 0,
                            "stopped": [], "seconds": 1.0, "complete": True}) + "\n")
write("base.jsonl", False)
write("new.jsonl", True)
PY
load=$(cut -d' ' -f1-3 /proc/loadavg)
size=$(du -h "$work/new.jsonl" | cut -f1)
/usr/bin/time -f '%e %M' -o "$work/time" "$lawsuite" diff "$work/base.jsonl" "$work/new.jsonl" >"$work/out" || true
read -r wall rss < <(tail -1 "$work/time")
printf 'diff of two %s-trial results files (%s each): %.2f s wall, %.0f MiB peak, load before %s\n' \
  "$n" "$size" "$wall" "$(awk "BEGIN {print $rss / 1024}")" "$load"
sed -n 2p "$work/out"
if [ -n "${DIFF_SCALE_VERBOSE:-}" ]; then head -30 "$work/out"; fi
