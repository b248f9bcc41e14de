#!/usr/bin/env bash
# The README's Node and Python quick starts, measured as a newcomer runs
# them: the block the README marks `<!-- quick start: LANG -->`, each command
# as printed, from a fresh empty directory, with an installed lawsuite (a
# copy of LAWSUITE first on PATH). Each command is timed (CPU seconds
# user + system of its whole process tree, and wall), with the load average
# before it; then the sum, "from an empty directory to the first report", and
# the line `lawsuite run` ends with. The README quotes what this prints.
#
#   benches/first_run.sh                 # python, then node
#   benches/first_run.sh python          # one of them
#
# LAWSUITE: the lawsuite binary (default: target/release/lawsuite, built if
# missing). Needs GNU time at /usr/bin/time; node and npm for node.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)

langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(python node)
for lang in "${langs[@]}"; do
  case "$lang" in
    python|node) ;;
    *) echo "first_run: unknown language $lang (python, node)" >&2; exit 2 ;;
  esac
done

lawsuite=${LAWSUITE:-$checkout/target/release/lawsuite}
if [ ! -x "$lawsuite" ]; then
  cargo build --release --bin lawsuite --quiet
fi
if [ ! -x /usr/bin/time ]; then
  echo "first_run: /usr/bin/time (GNU time) is needed: apt-get install time" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cp "$lawsuite" "$work/bin/lawsuite"
export PATH="$work/bin:$PATH"
# A newcomer's environment: none of a developer's LAWSUITE_* settings.
for var in $(env | grep -o '^LAWSUITE_[A-Z_]*' || true); do unset "$var"; done

model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $(nproc) cores, ${model:-unknown CPU}; $(date -u '+%Y-%m-%d %H:%M UTC')"

# The lines of the README's block for LANG, comments left on (sh ignores them).
block() {
  awk -v marker="<!-- quick start: $1 -->" '
    $0 == marker { found = 1; next }
    found && /^```sh$/ { inside = 1; next }
    inside && /^```$/ { exit }
    inside { print }
  ' "$checkout/README.md"
}

for lang in "${langs[@]}"; do
  if [ "$lang" = node ] && ! command -v npm >/dev/null 2>&1; then
    echo "$lang: skipped, npm is not on PATH"
    continue
  fi
  dir="$work/$lang"
  mkdir "$dir"
  cd "$dir"
  total_cpu=0
  total_wall=0
  echo "$lang quick start:"
  while IFS= read -r line; do
    command=${line%%#*}
    command=$(echo "$command" | sed 's/ *$//')
    [ -n "$command" ] || continue
    case "$command" in
      cd\ *) cd "${command#cd }"; continue ;;
    esac
    load=$(cut -d' ' -f1 /proc/loadavg)
    # The skeleton fails laws on purpose: `lawsuite run` exits 1.
    /usr/bin/time -f '%U %S %e' -o "$work/time" sh -c "$command" >"$work/out" 2>&1 || true
    read -r user sys wall < <(tail -1 "$work/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN { printf "%.2f", a + b }')
    total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN { printf "%.2f", a + b }')
    printf '  %-45s %6.2f CPU-s %6.2f s wall  load before %s\n' "$command" "$cpu" "$wall" "$load"
    last="$work/out"
  done < <(block "$lang")
  printf '  from an empty directory to the first report: %.1f s wall, %.1f CPU-s\n' "$total_wall" "$total_cpu"
  printf '  lawsuite run ended: %s\n' "$(grep -E '^[0-9]+ trials in ' "$last" | tail -1)"
  grep -E '^  mine: ' "$last" | sed 's/^/  /' || true
  cd "$checkout"
done
