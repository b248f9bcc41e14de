#!/usr/bin/env bash
# A Rust peer author's first day, measured: `lawsuite init --lang rust`
# into a fresh temporary directory, then the skeleton's first
# `cargo test --test conformance` from an empty target directory, timed as
# a whole (CPU seconds user + system, and wall), with the load average
# before it. The README quotes what this prints.
#
#   benches/first_day.sh                      # the skeleton as init writes it
#   benches/first_day.sh --judge-reference    # also judge the reference (the old default)
#   benches/first_day.sh --timings            # also: what each compiled unit cost (cargo --timings)
#
# LAWSUITE: the lawsuite binary to run (default: target/release/lawsuite,
# built if missing). Needs GNU time at /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)

judge=
timings=
for arg in "$@"; do
  case "$arg" in
    --judge-reference) judge=1 ;;
    --timings) timings=--timings ;;
    *) echo "first_day: unknown argument $arg (--judge-reference, --timings)" >&2; exit 2 ;;
  esac
done

lawsuite=${LAWSUITE:-$checkout/target/release/lawsuite}
if [ ! -x "$lawsuite" ]; then
  cargo build --release --bin lawsuite --quiet
fi
if [ ! -x /usr/bin/time ]; then
  echo "first_day: /usr/bin/time (GNU time) is needed: apt-get install time" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$lawsuite" init --lang rust "$work/my-peer" --lawsuite-path "$checkout" >/dev/null
if [ -n "$judge" ]; then
  sed -i 's/    Suite::new()/    Suite::new()\n        .judge_reference()/' "$work/my-peer/tests/conformance.rs"
fi

cd "$work/my-peer"
load=$(cut -d' ' -f1-3 /proc/loadavg)
# The skeleton fails laws on purpose (it is small code to replace): the
# exit status of cargo test is not what is measured.
/usr/bin/time -f '%U %S %e' -o "$work/time" \
  env CARGO_TARGET_DIR="$work/target" cargo test $timings --test conformance >"$work/out" 2>&1 || true
# GNU time says "Command exited with non-zero status N" first when the
# tests fail; the figures are its last line.
read -r user sys wall < <(tail -1 "$work/time")
trials=$(grep -Eo '^test result: [A-Za-z]+\. [0-9]+ passed; [0-9]+ failed; [0-9]+ ignored' "$work/out" | tail -1)
model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $(nproc) cores, ${model:-unknown CPU}; $(date -u '+%Y-%m-%d %H:%M UTC')"
printf 'first cargo test%s: %.1f CPU-s (user %.1f + sys %.1f), %.1f s wall, load before %s\n' \
  "${judge:+ (reference judged too)}" "$(awk "BEGIN {print $user + $sys}")" "$user" "$sys" "$wall" "$load"
printf '  %s\n' "${trials:-no test result line: see the output below}"
if [ -z "$trials" ] || [ -n "${FIRST_DAY_VERBOSE:-}" ]; then
  tail -20 "$work/out"
fi
if [ -n "$timings" ]; then
  # The slowest units of the build, from the report cargo wrote (its
  # UNIT_DATA), and the report kept under the checkout's target/tmp.
  report=$(ls "$work"/target/cargo-timings/cargo-timing-*.html | head -1)
  mkdir -p "$checkout/target/tmp"
  cp "$report" "$checkout/target/tmp/first-day-timings.html"
  python3 - "$report" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S).group(1))
total = sum(u["duration"] for u in units)
print(f"  {len(units)} units, {total:.1f} s of compile time in all (summed over units); the slowest:")
for u in sorted(units, key=lambda u: -u["duration"])[:12]:
    print(f"    {u['duration']:6.1f} s  {u['name']} {u['version']} {u.get('target', '').strip()}")
PY
  echo "  the whole report: target/tmp/first-day-timings.html"
fi
