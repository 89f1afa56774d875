#!/usr/bin/env bash
# olmlint benchmark: wall time and peak RSS of `olmlint lint` (all checks, including CEL and
# per-bundle SAT) against a bare parse of the same files with the same parser on the same
# threads, on the real corpus and on synthetic catalogs. Prints a table with the ratios.
#   bench/run.sh [RUNS]      (needs ../shared/corpus; writes scratch data under target/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release --locked -q --bin olmlint --example bare_parse --example gen-catalog
bin=target/release/olmlint
bare=target/release/examples/bare_parse
gen=target/release/examples/gen-catalog
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

row() { # name, olmlint args..., -- , bare args...
  local name=$1; shift
  local args=() bargs=()
  while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  bargs=("$@")
  read -r t m <<<"$(measure "$bin" lint "${args[@]}" -q --no-config -f json -o /dev/null)"
  read -r bt _ <<<"$(measure "$bare" "${bargs[@]}")"
  printf "%-34s %8s s %7s MB %9s s %7s\n" "$name" "$t" "$m" "$bt" "$(awk "BEGIN{printf \"%.2f\", $t/$bt}")"
}

printf "%-34s %10s %10s %11s %7s\n" "input" "olmlint" "peak RSS" "bare parse" "ratio"
if [ -d "$corpus/community-v4.18" ]; then
  row "community-v4.18 (13 MB, 727 bundles)" "$corpus/community-v4.18" -- "$corpus/community-v4.18"
fi
if [ -f "$corpus/community-operators-prod-catalogs.tar.xz" ]; then
  [ -d "$work/tarball/catalogs" ] || { mkdir -p "$work/tarball"; tar -xJf "$corpus/community-operators-prod-catalogs.tar.xz" -C "$work/tarball"; }
  row "all OpenShift catalogs (157 MB)" "$work"/tarball/catalogs/* -- "$work/tarball/catalogs"
fi
for n in 1000 3000 10000; do
  for fmt in yaml json; do
    d="$work/gen-$n-$fmt"
    [ -d "$d" ] || "$gen" --packages "$n" --bundles-per-package 10 --deps-per-bundle 3 --seed 1 --format "$fmt" --out "$d" >/dev/null
    row "synthetic $((n * 10)) bundles ($fmt)" "$d" -- "$d"
  done
done
