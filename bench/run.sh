#!/usr/bin/env bash
# olmlint benchmark: wall time and peak RSS of `olmlint lint` (all checks, including CEL and
# per-bundle SAT) against a bare parse of the same files with the same parser on the same
# threads (olmlint's YAML path: block-subset scanner with saphyr fallback; serde_json for
# JSON), and against saphyr-parser alone, on the real corpus (YAML and rendered to JSON) and
# on synthetic catalogs. Prints a table with the ratios, then `opm validate` side by side, then
# the issue #9 and #44 targets.
#   [OPM=path/to/opm-validate] bench/run.sh [RUNS] [opm]
# (needs ../shared/corpus; writes scratch data under target/bench). OPM is a binary that runs
# `opm validate DIR`'s code path (../shared/tools/opm-validate builds one); without it opm is
# not measured, and the script says so. A second argument `opm` runs only that side-by-side
# section (medians of RUNS runs, wall and CPU).
set -euo pipefail
opm=${OPM:-}
if [ -n "$opm" ]; then
  [ -x "$opm" ] && [ -f "$opm" ] || { echo "OPM=$opm is not an executable file" >&2; exit 2; }
  opm=$(cd "$(dirname "$opm")" && pwd)/$(basename "$opm")
fi
cd "$(dirname "$0")/.."
runs=${1:-3}
only=${2:-}
cargo build --release --locked -q --bin olmlint --example bare_parse --example gen-catalog \
  --example render_json
bin=target/release/olmlint
bare=target/release/examples/bare_parse
gen=target/release/examples/gen-catalog
render=target/release/examples/render_json
work=target/bench
mkdir -p "$work"
corpus=../shared/corpus/catalogs

# best wall seconds and its peak RSS (MB) over $runs runs of "$@"
measure() {
  local best="" rss=""
  for _ in $(seq "$runs"); do
    local out
    /usr/bin/time -o "$work/time.txt" -f "%e %M" "$@" >/dev/null 2>&1 || true
    out=$(tail -n 1 "$work/time.txt")
    local t=${out% *} m=${out#* }
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$((m / 1024)); fi
  done
  echo "$best $rss"
}

ratio() { awk "BEGIN{if ($2 > 0) printf \"%.2f\", $1/$2; else printf \"n/a\"}"; }

# one run of "$@": "WALL CPU STATUS", seconds with millisecond resolution (bash's `time`; CPU is
# the user + system time of the command and its children), STATUS its exit status
once() {
  local TIMEFORMAT='%3R %3U %3S' t rc=0
  t=$({ time "$@" >/dev/null 2>&1; } 2>&1) || rc=$?
  awk -v rc="$rc" '{printf "%.3f %.3f %s\n", $1, $2 + $3, rc}' <<<"$t"
}

# the median of its arguments (numbers)
median() {
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1}
    END {if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

declare -A wall
row() { # key, name, olmlint args..., -- , bare args...
  local key=$1 name=$2; shift 2
  local args=() bargs=()
  while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  bargs=("$@")
  read -r t m <<<"$(measure "$bin" lint "${args[@]}" -q --no-config -f json)"
  read -r bt _ <<<"$(measure "$bare" "${bargs[@]}")"
  read -r st _ <<<"$(measure env BARE_PARSER=saphyr "$bare" "${bargs[@]}")"
  wall[$key]=$t
  printf "%-38s %8s s %6s MB %9s s %6s %9s s %6s\n" "$name" "$t" "$m" "$bt" "$(ratio "$t" "$bt")" \
    "$st" "$(ratio "$t" "$st")"
}

community=$corpus/community-v4.18
tarball=$corpus/community-operators-prod-catalogs.tar.xz
if [ -f "$tarball" ] && [ ! -d "$work/tarball/catalogs" ]; then
  mkdir -p "$work/tarball"
  tar -xJf "$tarball" -C "$work/tarball"
fi

parse_tables() {
  printf "%-38s %10s %9s %11s %6s %11s %6s\n" "input" "olmlint" "peak RSS" "bare parse" "ratio" \
    "saphyr" "ratio"
  if [ -d "$community" ]; then
    row community "community-v4.18 (13 MB, 727 bundles)" "$community" -- "$community"
    [ -d "$work/community-json" ] || "$render" "$community" "$work/community-json" >/dev/null
    row community-json "community-v4.18 rendered to JSON" "$work/community-json" -- "$work/community-json"
  fi
  if [ -d "$work/tarball/catalogs" ]; then
    row tarball "all OpenShift catalogs (157 MB)" "$work"/tarball/catalogs/* -- "$work/tarball/catalogs"
    [ -d "$work/tarball-json" ] || "$render" "$work/tarball/catalogs" "$work/tarball-json" >/dev/null
    row tarball-json "all OpenShift catalogs as JSON" "$work"/tarball-json/* -- "$work/tarball-json"
  fi
  local n fmt d
  for n in 1000 3000 10000; do
    for fmt in yaml json; do
      d="$work/gen-$n-$fmt"
      [ -d "$d" ] || "$gen" --packages "$n" --bundles-per-package 10 --deps-per-bundle 3 --seed 1 --format "$fmt" --out "$d" >/dev/null
      row "gen-$n-$fmt" "synthetic $((n * 10)) bundles ($fmt)" "$d" -- "$d"
    done
  done
}

# Issue #33: the upgrade graphs (a lint run plus the drawing) and the HTML report.
graph_row() { # name, olmlint args...
  local name=$1 t m
  shift
  read -r t m <<<"$(measure "$bin" "$@")"
  printf "%-38s %8s s %6s MB\n" "$name" "$t" "$m"
}
graph_tables() {
  echo
  printf "%-38s %10s %9s\n" "graphs (issue #33)" "wall" "peak RSS"
  if [ -d "$community" ]; then
    graph_row "community-v4.18: graph -f svg" graph "$community" -f svg --no-config
    graph_row "community-v4.18: graph -f mermaid" graph "$community" --no-config
    graph_row "community-v4.18: lint -f html" lint "$community" -f html -q --no-config
  fi
  if [ -d "$work/gen-10000-yaml" ]; then
    graph_row "synthetic 100000 bundles: graph -f svg" graph "$work/gen-10000-yaml" -f svg --no-config
  fi
}

# Issue #44: `opm validate` side by side, on community-v4.18 and on each OpenShift version of the
# tarball: medians of $runs runs of each, olmlint and opm alternating so that both see the same
# machine load. The ratios are opm / olmlint (how many times faster olmlint is).
declare -A opm_wall opm_cpu
opm_row() { # name, catalog directory
  local name=$1 dir=$2 lw=() lc=() ow=() oc=() note="" w c rc
  for _ in $(seq "$runs"); do
    read -r w c rc <<<"$(once "$bin" lint "$dir" -q --no-config -f json)"
    lw+=("$w") lc+=("$c")
    [ "$rc" -le 1 ] || note="$note, olmlint exit $rc"
    read -r w c rc <<<"$(once "$opm" "$dir")"
    ow+=("$w") oc+=("$c")
    [ "$rc" -eq 0 ] || note="$note, opm exit $rc"
  done
  local mlw mlc mow moc
  mlw=$(median "${lw[@]}") mlc=$(median "${lc[@]}") mow=$(median "${ow[@]}") moc=$(median "${oc[@]}")
  opm_wall[$name]=$(ratio "$mow" "$mlw")
  opm_cpu[$name]=$(ratio "$moc" "$mlc")
  printf "%-18s %9s s %9s s %9s s %9s s %8sx %8sx%s\n" "$name" "$mlw" "$mlc" "$mow" "$moc" \
    "${opm_wall[$name]}" "${opm_cpu[$name]}" "${note:+ (${note#, })}"
}
opm_table() {
  echo
  if [ -z "$opm" ]; then
    echo "opm validate: NOT MEASURED (no OPM given). Build one with ../shared/tools/opm-validate/build.sh"
    echo "and run OPM=path/to/opm-validate bench/run.sh to print olmlint and opm side by side."
    return
  fi
  echo "olmlint vs opm validate ($opm), medians of $runs runs each, alternating"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf "%-18s %11s %11s %11s %11s %9s %9s\n" "input" "olmlint" "CPU" "opm" "CPU" \
    "wall x" "CPU x"
  [ -d "$community" ] && opm_row community-v4.18 "$community"
  local d
  for d in "$work"/tarball/catalogs/*/; do
    [ -d "$d" ] && opm_row "tarball $(basename "$d")" "$d"
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

[ "$only" = opm ] || parse_tables
[ "$only" = opm ] || graph_tables
opm_table

echo
if [ "$only" != opm ]; then
  echo "issue #9 targets (ratios of the best walls above):"
  if [ -n "${opm_wall[community-v4.18]:-}" ]; then
    echo "  1. community vs opm validate: ${opm_wall[community-v4.18]}x faster in wall, ${opm_cpu[community-v4.18]}x in CPU (medians, side by side above; target 8x)"
  else
    echo "  1. community vs opm validate: not measured (no OPM given)"
  fi
  [ -n "${wall[tarball]:-}" ] && echo "  2. all OpenShift catalogs: ${wall[tarball]} s (target < 2 s)"
  for pair in community tarball gen-1000 gen-3000 gen-10000; do
    y=${wall[$pair]:-${wall[$pair-yaml]:-}} j=${wall[$pair-json]:-}
    [ -n "$y" ] && [ -n "$j" ] && echo "  3. $pair: JSON $(ratio "$y" "$j")x faster than YAML"
  done
  [ -n "${wall[gen-10000-yaml]:-}" ] && echo "  4. 100k bundles: YAML ${wall[gen-10000-yaml]} s, JSON ${wall[gen-10000-json]} s (target < 10 s)"
fi
if [ -n "$opm" ] && [ "${#opm_wall[@]}" -gt 0 ]; then
  low=$(for k in "${!opm_wall[@]}"; do
    printf '%s %s %s\n' "${opm_wall[$k]}" wall "$k"
    printf '%s %s %s\n' "${opm_cpu[$k]}" CPU "$k"
  done | sort -g | head -n 1)
  read -r lr lkind lname <<<"$low"
  verdict="met"
  awk "BEGIN{exit !($lr < 18)}" && verdict="NOT met"
  echo "issue #44 target (olmlint >= 18x faster than opm validate in wall and CPU, every input): $verdict; lowest ratio ${lr}x ($lkind, $lname)"
else
  echo "issue #44 target (>= 18x opm validate): not measured (no OPM given)"
fi
