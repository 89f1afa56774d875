#!/usr/bin/env bash
# Packs one release archive: `scripts/package-release.sh TARGET BINARY OUTDIR`.
#
#   OUTDIR/olmlint-TARGET.tar.gz   (a .zip for Windows targets) holding
#       olmlint-TARGET/olmlint[.exe], LICENSE, README.md
#   OUTDIR/olmlint-TARGET.tar.gz.sha256   "<sha256>  <archive name>" (sha256sum's format)
#
# The names carry no version, so that releases/latest/download/olmlint-TARGET.tar.gz always
# names the newest one (as ruff's and uv's do); the release workflow gathers every .sha256 into
# sha256sums.txt, which the GitHub Action verifies downloads against. The action's tests pack
# their fake releases with this script, so the two cannot drift apart.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TARGET BINARY OUTDIR" >&2; exit 2; }
target=$1 binary=$2 outdir=$3
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$binary" ] || { echo "package-release: no binary at $binary" >&2; exit 2; }
case $target in
  *[!A-Za-z0-9_.-]* | "") echo "package-release: bad target '$target'" >&2; exit 2 ;;
esac

exe=olmlint
case $target in *windows*) exe=olmlint.exe ;; esac
name="olmlint-$target"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/olmlint-package.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/$exe"
chmod 755 "$stage/$name/$exe"
cp "$root/LICENSE" "$root/README.md" "$stage/$name/"

case $target in
  *windows*)
    archive="$name.zip"
    rm -f "$outdir/$archive"
    py=$(command -v python3 || command -v python || true)
    [ -n "$py" ] || { echo "package-release: python is needed to write a zip" >&2; exit 2; }
    (cd "$stage" && "$py" -m zipfile -c "$outdir/$archive" "$name")
    ;;
  *)
    archive="$name.tar.gz"
    # Reproducible enough for a checksum file: fixed owner, sorted names where GNU tar allows.
    if tar --version 2>/dev/null | grep -q 'GNU tar'; then
      (cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner -czf "$outdir/$archive" "$name")
    else
      (cd "$stage" && tar -czf "$outdir/$archive" "$name")
    fi
    ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
  sum=$(sha256sum "$outdir/$archive" | cut -c1-64)
else
  sum=$(shasum -a 256 "$outdir/$archive" | cut -c1-64)
fi
printf '%s  %s\n' "$sum" "$archive" >"$outdir/$archive.sha256"
echo "$outdir/$archive"
