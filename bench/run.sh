#!/usr/bin/env bash
# olmlint benchmark: wall time and peak RSS of `olmlint lint` (all checks, including CEL and
# per-bundle SAT) against a bare parse of the same files with the same parser on the same
# threads (olmlint's YAML path: block-subset scanner with saphyr fallback; serde_json for
# JSON), and against saphyr-parser alone, on the real corpus (YAML and rendered to JSON) and
# on synthetic catalogs. Prints a table with the ratios, then the issue #9 targets.
#   bench/run.sh [RUNS]      (needs ../shared/corpus; writes scratch data under target/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release --locked -q --bin olmlint --example bare_parse --example gen-catalog \
  --example render_json
bin=target/release/olmlint
bare=target/release/examples/bare_parse
gen=target/release/examples/gen-catalog
render=target/release/examples/render_json
# `opm validate` (operator-registry v1.73) on community-v4.18, measured for issue #9.
opm_community=0.84
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

ratio() { awk "BEGIN{printf \"%.2f\", $1/$2}"; }

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

printf "%-38s %10s %9s %11s %6s %11s %6s\n" "input" "olmlint" "peak RSS" "bare parse" "ratio" \
  "saphyr" "ratio"
if [ -d "$corpus/community-v4.18" ]; then
  row community "community-v4.18 (13 MB, 727 bundles)" "$corpus/community-v4.18" -- "$corpus/community-v4.18"
  [ -d "$work/community-json" ] || "$render" "$corpus/community-v4.18" "$work/community-json" >/dev/null
  row community-json "community-v4.18 rendered to JSON" "$work/community-json" -- "$work/community-json"
fi
if [ -f "$corpus/community-operators-prod-catalogs.tar.xz" ]; then
  [ -d "$work/tarball/catalogs" ] || { mkdir -p "$work/tarball"; tar -xJf "$corpus/community-operators-prod-catalogs.tar.xz" -C "$work/tarball"; }
  row tarball "all OpenShift catalogs (157 MB)" "$work"/tarball/catalogs/* -- "$work/tarball/catalogs"
  [ -d "$work/tarball-json" ] || "$render" "$work/tarball/catalogs" "$work/tarball-json" >/dev/null
  row tarball-json "all OpenShift catalogs as JSON" "$work"/tarball-json/* -- "$work/tarball-json"
fi
for n in 1000 3000 10000; do
  for fmt in yaml json; do
    d="$work/gen-$n-$fmt"
    [ -d "$d" ] || "$gen" --packages "$n" --bundles-per-package 10 --deps-per-bundle 3 --seed 1 --format "$fmt" --out "$d" >/dev/null
    row "gen-$n-$fmt" "synthetic $((n * 10)) bundles ($fmt)" "$d" -- "$d"
  done
done

# Issue #33: the upgrade graphs (a lint run plus the drawing) and the HTML report.
echo
printf "%-38s %10s %9s\n" "graphs (issue #33)" "wall" "peak RSS"
graph_row() { # name, olmlint args...
  local name=$1 t m
  shift
  read -r t m <<<"$(measure "$bin" "$@")"
  printf "%-38s %8s s %6s MB\n" "$name" "$t" "$m"
}
if [ -d "$corpus/community-v4.18" ]; then
  graph_row "community-v4.18: graph -f svg" graph "$corpus/community-v4.18" -f svg --no-config
  graph_row "community-v4.18: graph -f mermaid" graph "$corpus/community-v4.18" --no-config
  graph_row "community-v4.18: lint -f html" lint "$corpus/community-v4.18" -f html -q --no-config
fi
[ -d "$work/gen-10000-yaml" ] && graph_row "synthetic 100000 bundles: graph -f svg" graph "$work/gen-10000-yaml" -f svg --no-config

echo
echo "issue #9 targets (ratios of the best walls above):"
[ -n "${wall[community]:-}" ] && echo "  1. community vs opm validate (${opm_community} s, measured 2026-11-21 on this VM; wall times vary by day): $(ratio "$opm_community" "${wall[community]}")x faster"
[ -n "${wall[tarball]:-}" ] && echo "  2. all OpenShift catalogs: ${wall[tarball]} s (target < 2 s)"
for pair in community tarball gen-1000 gen-3000 gen-10000; do
  y=${wall[$pair]:-${wall[$pair-yaml]:-}} j=${wall[$pair-json]:-}
  [ -n "$y" ] && [ -n "$j" ] && echo "  3. $pair: JSON $(ratio "$y" "$j")x faster than YAML"
done
[ -n "${wall[gen-10000-yaml]:-}" ] && echo "  4. 100k bundles: YAML ${wall[gen-10000-yaml]} s, JSON ${wall[gen-10000-json]} s (target < 10 s)"
true
