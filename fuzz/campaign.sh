#!/usr/bin/env bash
# A fuzzing campaign: each named target (default: all) for SECONDS (default 1800) under
# libFuzzer with AddressSanitizer, one process each, niced so that builds keep the machine.
# The working corpus grows in fuzz/work/TARGET (ignored by git), seeded from the committed
# fuzz/corpus/TARGET; at the end the inputs that add coverage are merged back into
# fuzz/corpus/TARGET (libFuzzer -merge=1), which stays small. Crashes land in
# fuzz/artifacts/TARGET. Logs: fuzz/logs/TARGET.log (the last lines give runs, coverage,
# exec/s).
#
#   fuzz/campaign.sh [SECONDS] [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); stable Rust works with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
seconds=${1:-1800}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load range constraint cel lint graph templates pr)
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O
mkdir -p logs work
for t in "${targets[@]}"; do
  mkdir -p "work/$t" "artifacts/$t"
  cp -n corpus/"$t"/* "work/$t/" 2>/dev/null || true
  # The whole-pipeline targets build a directory and run every check per input: slow inputs
  # up to 20 s are not hangs; -close_fd_mask=3 keeps olmlint's own prints out of the log.
  # Absolute paths: a target may change the process's directory while an input runs.
  nice -n 19 cargo fuzz run -O "$t" "$here/work/$t" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    -close_fd_mask=3 -artifact_prefix="$here/artifacts/$t/" -print_final_stats=1 \
    >"logs/$t.log" 2>&1 &
done
wait
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t.new"
  nice -n 19 cargo fuzz run -O "$t" "$here/corpus/$t.new" "$here/corpus/$t" "$here/work/$t" -- \
    -merge=1 -timeout=20 -rss_limit_mb=4096 -close_fd_mask=3 >"logs/$t.merge.log" 2>&1 || true
  if [ -n "$(ls -A "corpus/$t.new")" ]; then
    rm -rf "corpus/$t" && mv "corpus/$t.new" "corpus/$t"
  else
    rm -rf "corpus/$t.new"
  fi
  echo "$t: $(grep -E 'stat::number_of_executed_units|cov:' "logs/$t.log" | tail -2 | tr '\n' ' ')"
  echo "$t: corpus $(find "corpus/$t" -type f | wc -l) inputs, $(du -sh "corpus/$t" | cut -f1); artefacts (crashes, leaks, slow units): $(find "artifacts/$t" -type f | wc -l)"
done
