#!/usr/bin/env bash
# What the commands that read results files cost at scale: `lawsuite
# diff` (and so `run --baseline`, which reads the baseline the same
# way), `merge` and `report`, timed by GNU time: wall seconds and peak
# memory (maximum resident set size).
#
#   benches/diff_scale.sh                # two files of N = 100000 trials
#   benches/diff_scale.sh 6000000        # the scale of issue 45: 6 million
#   benches/diff_scale.sh --huge 300     # one outcome line of 300 MB
#
# N trials: two synthetic `--format jsonl` files of N trials each, half
# law trials and half seed trials (each seed its own item, so the summary
# counts N/2 seeds), 2 % of the verdicts flipped between them, every
# failure with a one-line report; then `diff` of the two, `merge` of the
# first (human format, to /dev/null) and `report` of it (HTML).
#
# --huge MB: the same two files of 10 trials, the new one's first outcome
# a broken trial whose reason is MB megabytes (one line of that size);
# then `diff`, `merge` and `report` of it.
#
# LAWSUITE: the binary (default: target/release/lawsuite, built if
# missing). KEEP=1 keeps the files (printed) instead of removing them.
set -euo pipefail
cd "$(dirname "$0")/.."
huge=0
n=100000
case "${1:-}" in
  --huge) huge=${2:?--huge takes a size in MB}; n=10 ;;
  "") ;;
  *) n=$1 ;;
esac
lawsuite=${LAWSUITE:-$(pwd)/target/release/lawsuite}
if [ ! -x "$lawsuite" ]; then
  cargo build --release --bin lawsuite --quiet
fi
version=$("$lawsuite" --version | awk '{print $2}')
work=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
  echo "files in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
python3 - "$work" "$n" "$version" "$huge" <<'PY'
import json, sys
work, n, version, huge = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def write(name, flip):
    counts = {"pass": 0, "fail": 0, "expectedFailure": 0, "unexpectedPass": 0, "skipped": 0, "broken": 0}
    by_kind = {"law": dict(counts), "seed": dict(counts)}
    with open(f"{work}/{name}", "w") as f:
        f.write(json.dumps({"type": "run", "lawsuite": version, "project": "synthetic", "reference": "portable",
                            "peers": [{"name": "portable", "version": version, "ground": "full"},
                                      {"name": "mine", "version": "1", "ground": "shared"}],
                            "started": 0, "machine": "synthetic", "trials": n}) + "\n")
        for i in range(n):
            failing = (i % 10 == 0) != (flip and i % 50 == 7)
            if i % 2:
                kind, item = "law", f"law::area{i % 40}::file{i % 400}::law-{i}"
                o = {"type": "outcome", "id": f"{item}::mine", "item": item, "kind": kind, "peer": "mine",
                     "spec": f"search-contract §{i % 20}", "seconds": 0.001}
            else:
                kind, item = "seed", f"seed::lawsuite::full::{i:08}"
                o = {"type": "outcome", "id": f"{item}::mine", "item": item, "kind": kind, "peer": "mine",
                     "compared": 12, "seconds": 0.004}
            if flip and huge and i == 0:
                # One line of `huge` MB: written in pieces, never held.
                counts_of = by_kind[kind]
                counts_of["broken"] += 1
                f.write(json.dumps(o)[:-1] + ', "verdict": "broken", "why": "')
                piece = "x" * (1 << 20)
                for _ in range(huge):
                    f.write(piece)
                f.write('"}\n')
                continue
            if failing:
                o["verdict"] = "fail"
                o["report"] = {"summary": "the answer differs from the expected one in paths", "cases": []}
                by_kind[kind]["fail"] += 1
            else:
                o["verdict"] = "pass"
                by_kind[kind]["pass"] += 1
            f.write(json.dumps(o) + "\n")
        by_kind = {k: v for k, v in by_kind.items() if sum(v.values())}
        f.write(json.dumps({"type": "summary", "byKind": by_kind, "byPeer": {},
                            "bySection": {}, "divergentCalls": 0, "comparedCalls": 0, "seeds": 0,
                            "stopped": [], "seconds": 1.0, "complete": True}) + "\n")
write("base.jsonl", False)
write("new.jsonl", True)
PY
size=$(du -h "$work/new.jsonl" | cut -f1)
measure() {
  local what=$1
  shift
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  /usr/bin/time -f '%e %M %x' -o "$work/time" "$lawsuite" "$@" >"$work/out" 2>"$work/err" || true
  read -r wall rss status < <(tail -1 "$work/time")
  printf '%-7s %s trials (%s): %.2f s wall, %.0f MiB peak, exit %s, load before %s\n' \
    "$what" "$n" "$size" "$wall" "$(awk "BEGIN {print $rss / 1024}")" "$status" "$load"
  if [ -n "${DIFF_SCALE_VERBOSE:-}" ]; then head -c 2000 "$work/out"; head -c 2000 "$work/err"; fi
}
measure diff diff "$work/base.jsonl" "$work/new.jsonl"
sed -n 2p "$work/out"
measure merge merge "$work/new.jsonl"
measure report report "$work/new.jsonl" -o "$work/report.html"
