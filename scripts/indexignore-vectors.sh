#!/usr/bin/env bash
# Regenerates tests/data/indexignore-vectors.json, the differential vectors of olmlint's
# `.indexignore` matcher (tests/it/indexignore.rs), from the matcher opm really uses:
# github.com/joelanford/ignore v0.1.2 over go-git v5.19.2's gitignore patterns, walked as
# operator-registry's alpha/declcfg walkFiles walks (scripts/indexignore-vectors.go).
#
#   scripts/indexignore-vectors.sh [VENDOR]
#
# VENDOR: a Go vendor directory holding those packages and their imports (the vendor/ of
# operator-lifecycle-manager or operator-registry, as `go mod vendor` writes it): built
# offline in GOPATH mode. Without it the two modules come from the Go module proxy.
# GO names the go binary (default: go on PATH); CASES the number of cases (default 3000).
# The cases are generated from a fixed seed: a rerun writes the same file unless the
# matcher's verdicts changed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
go=${GO:-go}
cases=${CASES:-3000}
out=$root/tests/data/indexignore-vectors.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS=

if [ $# -ge 1 ]; then
    vendor=$(cd "$1" && pwd)
    [ -d "$vendor/github.com/joelanford/ignore" ] || {
        echo "indexignore-vectors.sh: $1 holds no github.com/joelanford/ignore" >&2
        exit 2
    }
    mkdir -p "$work/src/vectors"
    for d in "$vendor"/*/; do
        ln -s "$d" "$work/src/$(basename "$d")"
    done
    cp "$root/scripts/indexignore-vectors.go" "$work/src/vectors/main.go"
    (cd "$work/src/vectors" && GO111MODULE=off GOPATH=$work GOPROXY=off "$go" build -o "$work/vectors" .)
else
    mkdir -p "$work/mod"
    cp "$root/scripts/indexignore-vectors.go" "$work/mod/main.go"
    cat >"$work/mod/go.mod" <<'EOF'
module vectors

go 1.23

require (
	github.com/go-git/go-git/v5 v5.19.2
	github.com/joelanford/ignore v0.1.2
)
EOF
    (cd "$work/mod" && "$go" mod tidy && "$go" build -o "$work/vectors" .)
fi
"$work/vectors" "$cases" >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($cases cases)"
