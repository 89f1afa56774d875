#!/usr/bin/env bash
# Issue #30 budget: a whole `operators/` tree of bundle directories (community-operators-prod,
# certified-operators; a local copy, not in this repository) in under 20 s and 1.5 GB, and within
# 1.5x the sum of per-operator runs. Prints wall seconds, CPU seconds and peak RSS for the tree
# as one path, as one path per operator (`operators/*`), and the sum of one run per operator.
#   bench/operators.sh OPERATORS_DIR [BIN]
set -euo pipefail
dir=${1:?usage: bench/operators.sh OPERATORS_DIR [BIN]}
bin=${2:-}
if [ -z "$bin" ]; then
  (cd "$(dirname "$0")/.." && cargo build --release --locked -q --bin olmlint)
  bin="$(cd "$(dirname "$0")/.." && pwd)/target/release/olmlint"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # label args...
  local label=$1; shift
  /usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "$bin" lint --no-config -q -f json -o "$tmp/out.json" "$@" \
    >/dev/null 2>&1 || true
  read -r e u s m < <(tail -n 1 "$tmp/t")
  printf '%-28s %8.2f s wall %8.2f s CPU %7d MB peak\n' "$label" "$e" "$(awk "BEGIN{print $u+$s}")" "$((m / 1024))"
}
measure "tree as one path" "$dir"
measure "one path per operator" "$dir"/*/
total=0
for op in "$dir"/*/; do
  /usr/bin/time -o "$tmp/t" -f "%e" "$bin" lint --no-config -q -f json -o "$tmp/out.json" "$op" >/dev/null 2>&1 || true
  total=$(awk "BEGIN{print $total + $(tail -n 1 "$tmp/t")}")
done
printf '%-28s %8.2f s wall (sum)\n' "one run per operator" "$total"
