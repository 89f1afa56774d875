#!/usr/bin/env bash
# Hostile-input scaling benchmark (issues #28 and #43): each generator of bench/hostile_gen.py
# at N and 10N; prints CPU seconds, peak RSS and report size, and the 10N/N ratios
# (near-linear: about 10, bounded: about 1). Not a test: timings vary with the machine. Needs
# python3.
#   bench/hostile.sh            (writes scratch data under target/bench/hostile)
#   OLMLINT_BIN=path bench/hostile.sh   (measures that binary instead of building this tree)
#   ONLY='olm111|suggest' bench/hostile.sh   (only the cases matching a regular expression)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${OLMLINT_BIN:-}" ]; then
  bin=$(realpath "$OLMLINT_BIN")
else
  cargo build --release --locked -q --bin olmlint
  bin=$PWD/target/release/olmlint
fi
work=target/bench/hostile
mkdir -p "$work"
PWD_WORK=$PWD/$work

# class variant N [k=K] [extra args...]   (k: the generator's --k, default 1000)
cases=(
  "chain version 1000"
  "chain two 500"
  "chain gvk 1000 --closed-world"
  "keys pkg 10000"
  "keys json 10000"
  "providers pkgs 1000"
  "providers self 2000"
  "replaces bar 1000"
  "replaces any 1000"
  "replaces not 1000"
  "skiprange alias 100"
  "fixes olm212 4000"
  "fixes json1 4000"
  "olm111 lt 2000"
  "olm111 dirs 1000"
  "suggest skips 1000"
  "suggest package 1000"
  "suppress pointer 3000"
  "suppress globs 3000"
  "mapping dup 1000"
  "mapping names 1000"
  "members dirs 100 k=5000"
  "members semver 100 k=5000"
  "snapshot many 1000"
  "snapshot blob 10"
)

run() { # dir args... -> "cpu_seconds rss_mb report_bytes exit"
  local dir=$1; shift
  local code=0
  # A generator that writes a configuration (suppress) is linted with it.
  local config=(--no-config)
  [ -f "$dir/.olmlint.yaml" ] && config=(--config "$dir/.olmlint.yaml")
  # A generator that writes a git repository (snapshot) is linted in it, in PR mode.
  local target=("$dir")
  if [ -d "$dir/.git" ]; then
    target=(--changed-since base .)
    [ -f "$dir/.olmlint.yaml" ] && config=(--config .olmlint.yaml)
  fi
  (cd "$([ -d "$dir/.git" ] && echo "$dir" || echo .)" &&
    /usr/bin/time -o "$PWD_WORK/time.txt" -f "%U %S %M" timeout 120 "$bin" lint "${config[@]}" -f json "$@" "${target[@]}" \
      >"$PWD_WORK/out.json" 2>/dev/null) || code=$?
  # (GNU time writes "Command exited with non-zero status N" first when the exit code is not 0.)
  read -r u s m < <(tail -n 1 "$work/time.txt") || true
  echo "$(awk "BEGIN{printf \"%.2f\", $u+$s}") $((m / 1024)) $(stat -c %s "$work/out.json") $code"
}

printf '| case | N | CPU s | RSS MB | report B | 10N CPU s | 10N RSS MB | 10N report B | ratios (CPU, RSS, report) |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
for c in "${cases[@]}"; do
  [[ -n ${ONLY:-} && ! $c =~ $ONLY ]] && continue
  read -r cls variant n extra <<<"$c"
  k=1000
  if [[ $extra == k=* ]]; then
    read -r k extra <<<"$extra"
    k=${k#k=}
  fi
  small="$work/$cls-$variant-$n"
  big="$work/$cls-$variant-$((n * 10))"
  python3 bench/hostile_gen.py "$cls" "$n" "$small" --variant "$variant" --k "$k"
  python3 bench/hostile_gen.py "$cls" "$((n * 10))" "$big" --variant "$variant" --k "$k"
  # $extra is a list of flags: split on purpose.
  read -r -a flags <<<"$extra"
  read -r c1 r1 o1 _ <<<"$(run "$small" "${flags[@]}")"
  read -r c2 r2 o2 e2 <<<"$(run "$big" "${flags[@]}")"
  ratios=$(awk "BEGIN{printf \"%.1f, %.1f, %.1f\", ($c2+0.01)/($c1+0.01), $r2/$r1, $o2/$o1}")
  [ "$e2" = 124 ] && ratios="timed out at 120 s"
  printf '| %s %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$cls" "$variant" "$n" "$c1" "$r1" "$o1" "$c2" "$r2" "$o2" "$ratios"
  rm -rf "$small" "$big"
done
