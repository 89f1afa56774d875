#!/usr/bin/env bash
# Issue #46 speed target (p90 <= 1 s, max <= 3 s): wall time of the GitHub Action's olmlint run on
# the last N merged pull requests of an operator pipeline repository (community-operators-prod,
# certified-operators). Each pull request is replayed as the Action runs it: at the repository
# root, the whole repository checked out at the PR head, origin/main at its merge-base,
#   olmlint lint -f json -o REPORT --fail-on error --changed-since origin/main --only-new
# one pull request at a time (scripts/replay-prs.py does the work). Prints the median, p90 and
# max wall time and the slowest pull requests; times are reported, never asserted.
#   bench/pr.sh REPO_DIR N [BIN]
# REPO_DIR: a git repository holding main and the pull refs (refs/pull/<N>/head): a bare mirror
# (`git clone --mirror URL`) or a clone that fetched '+refs/pull/*/head:refs/pull/*/head'. It is
# only read. BIN: the olmlint to time (default: target/release/olmlint, built with cargo).
# WORK (default target/bench/pr-<name of REPO_DIR>) holds the work tree, a repository that borrows
# REPO_DIR's objects (the first run checks out the whole repository: about 2.5 GB and a minute),
# and the replay's output (WORK/out/summary.txt lists every finding).
set -euo pipefail
usage="usage: bench/pr.sh REPO_DIR N [BIN]"
repo=${1:?$usage}
n=${2:?$usage}
bin=${3:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "N must be a positive number; $usage" >&2; exit 2; }
git_dir=$(git -C "$repo" rev-parse --absolute-git-dir 2>/dev/null) ||
  { echo "$repo is not a git repository; $usage" >&2; exit 2; }
cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
  cargo build --release --locked -q --bin olmlint
  bin=$PWD/target/release/olmlint
fi
[ -x "$bin" ] && [ -f "$bin" ] || { echo "$bin is not an executable file" >&2; exit 2; }
name=$(basename "${git_dir%/.git}")
[ "$name" = repo ] && name=$(basename "$(dirname "$git_dir")")
work=${WORK:-$PWD/target/bench/pr-$name}
mkdir -p "$work"
python3 scripts/replay-prs.py "$git_dir" "$work" "$n" --merged --olmlint "olmlint=$bin" \
  --out "$work/out" >"$work/summary.txt"
python3 - "$work/out/summary.json" "$work/summary.txt" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
b = summary["binaries"]["olmlint"]
t, m = b["time"]["merged"], summary["meta"]
print(f"{t['n']} merged pull requests of {m['repository']} (main at {m['main'][:12]}):")
print(f"  wall time of the Action's run: median {t['median']:.2f} s, p90 {t['p90']:.2f} s, "
      f"max {t['max']:.2f} s")
print(f"  exit codes: {b['exit']['merged']}")
runs = [(pr["runs"]["olmlint"]["wall"], pr) for pr in summary["prs"] if "olmlint" in pr["runs"]]
print("  slowest:")
for wall, pr in sorted(runs, key=lambda r: -r[0])[:5]:
    ops = ", ".join(pr["operators"][:3]) or "no operator"
    print(f"    #{pr['number']}: {wall:.2f} s ({pr['files']} changed files; {ops})")
print(f"  every finding: {sys.argv[2]}")
PY
