#!/usr/bin/env bash
# What a `lawsuite fuzz` campaign finds that the default seeds do not: a
# fresh project registers the Rust peer of examples/planted_peer.rs in its
# `rare` mode (a grep with maxCount, ignoreCase, afterContext >= 2 and
# limit 1 counts one file too many), runs the default seeds on it, then
# `fuzz --for DURATION` from a fresh campaign state. It prints the default
# seeds' verdicts, the campaign's summary (seeds, calls/s, groups, time to
# the first group) and the load average before each.
#
#   benches/fuzz_planted.sh          # --for 60s
#   benches/fuzz_planted.sh 300s
#
# PROFILE: the cargo profile of the binary and the example (default
# release; debug to measure without a release build). LAWSUITE: the binary
# (default: target/$PROFILE/lawsuite, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-60s}
profile=${PROFILE:-release}
flag=--release
[ "$profile" = debug ] && flag=
lawsuite=${LAWSUITE:-$(pwd)/target/$profile/lawsuite}
if [ ! -x "$lawsuite" ]; then
  cargo build $flag --bin lawsuite --quiet
fi
cargo build $flag --example planted_peer --quiet
planted=$(pwd)/target/$profile/examples/planted_peer
echo "profile $profile"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/lawsuite.toml" <<TOML
[[peer]]
name = "planted"
command = ["$planted", "rare"]
TOML
cd "$work"
echo "load before the default seeds: $(cut -d' ' -f1-3 /proc/loadavg)"
set +e
"$lawsuite" run --no-laws --no-regressions --peer planted 2>/dev/null | grep -E '^seeds \(|trials in'
echo "load before the campaign: $(cut -d' ' -f1-3 /proc/loadavg)"
"$lawsuite" fuzz --for "$budget" --peer planted 2>&1 | grep -E '^fuzz: [0-9]|^NEW|^    first:'
status=${PIPESTATUS[0]}
set -e
echo "fuzz exit status $status (1: a new group was found)"
