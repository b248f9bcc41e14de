#!/usr/bin/env bash
# The harness's own cost (issue 47's goals): CPU seconds (user + system of
# the whole process tree) of every shipped law on portable alone and on the
# four built-ins, and of the default seeds (ripgrep and ripgrep-walk
# against portable), each in a fresh empty directory, with the 1-minute
# load average beside each figure. Give one or more lawsuite binaries to
# compare them side by side, alternating:
#
#   benches/harness_cost.sh BEFORE=/path/to/old/lawsuite AFTER=target/release/lawsuite
#
# Needs GNU time (/usr/bin/time) and rg on PATH.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 LABEL=BINARY..." >&2; exit 2; }
one() {
  local label=$1 bin=$2 what=$3; shift 3
  local dir load
  dir=$(mktemp -d)
  load=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$dir" && /usr/bin/time -f "%U %S %e" -o "$dir/time" "$bin" run "$@" >/dev/null 2>&1) || true
  read -r user sys wall < "$dir/time"
  printf '| %s | %s | %.2f CPU-s (%s user + %s sys), %s s wall | %s |\n' \
    "$label" "$what" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$user" "$sys" "$wall" "$load"
  rm -rf "$dir"
}
echo "| binary | run | cost | load |"
echo "| --- | --- | --- | --- |"
for what in laws-4 laws-portable seeds; do
  for pair in "$@"; do
    label=${pair%%=*}; bin=${pair#*=}
    case $what in
      laws-4) one "$label" "$bin" "every shipped law on the four built-ins" --no-seeds \
                --peer portable --peer model --peer ripgrep --peer ripgrep-walk ;;
      laws-portable) one "$label" "$bin" "every shipped law on portable" --no-seeds --peer portable ;;
      seeds) one "$label" "$bin" "the 76 default seeds (divide by 76 for a seed)" --no-laws \
               --peer ripgrep --peer ripgrep-walk ;;
    esac
  done
done
