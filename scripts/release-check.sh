#!/usr/bin/env bash
# Checks that every place naming olmlint's version agrees, and (with a tag) that the tag is
# that version: `scripts/release-check.sh [vX.Y.Z]`. The release workflow runs it first, so a
# tag that does not match Cargo.toml publishes nothing.
#
#   Cargo.toml           [package] version            (the version: everything else follows it)
#   Cargo.lock           the olmlint package's version (cargo publish --locked needs it current)
#   pyproject.toml       the pre-commit shim's version and its olmlint==X.Y.Z pin
#
# pypi/pyproject.toml takes its version from Cargo.toml (dynamic), so it cannot disagree.
# Prints the version on success; exit 1 with one line per disagreement otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

# The workspace's version: the first `version = "..."` after [workspace.package] in Cargo.toml
# (every crate of the workspace takes it with `version.workspace = true`).
version=$(awk '
  /^\[/ { in_pkg = ($0 == "[workspace.package]") }
  in_pkg && /^version[[:space:]]*=/ { gsub(/^[^"]*"|".*$/, ""); print; exit }
' Cargo.toml)
[ -n "$version" ] || { echo "release-check: no [workspace.package] version in Cargo.toml" >&2; exit 1; }

problems=0
problem() { echo "release-check: $*" >&2; problems=$((problems + 1)); }

case $version in
  *[!0-9A-Za-z.+-]* | "" ) problem "Cargo.toml version '$version' is not a semantic version" ;;
esac

# Every crate of the workspace is published at the workspace's version, and depends on the
# others at exactly that version (`cargo publish --workspace` publishes them in order).
for manifest in Cargo.toml crates/*/Cargo.toml; do
  name=$(awk '/^\[package\]/ { p = 1 } p && /^name = / { gsub(/"/, "", $3); print $3; exit }' "$manifest")
  grep -q '^version.workspace = true' "$manifest" \
    || problem "$manifest does not take the workspace's version (version.workspace = true)"
  lock=$(awk -v want="\"$name\"" '
    /^\[\[package\]\]/ { name = "" }
    /^name = / { name = $3 }
    /^version = / && name == want { gsub(/"/, "", $3); print $3; exit }
  ' Cargo.lock)
  [ "$lock" = "$version" ] || problem "Cargo.lock has $name $lock, Cargo.toml $version (run cargo update --workspace)"
done
while read -r dep pin; do
  [ "$pin" = "=$version" ] || problem "Cargo.toml pins $dep at '$pin', not =$version"
done < <(sed -n 's/^\(olmlint-[a-z]*\) = {.*version = "\([^"]*\)".*/\1 \2/p' Cargo.toml)

shim=$(awk '
  /^\[/ { in_proj = ($0 == "[project]") }
  in_proj && /^version[[:space:]]*=/ { gsub(/^[^"]*"|".*$/, ""); print; exit }
' pyproject.toml)
[ "$shim" = "$version" ] || problem "pyproject.toml (pre-commit shim) has version $shim, Cargo.toml $version"
pin=$(grep -o '"olmlint==[^"]*"' pyproject.toml | head -n 1 | sed 's/"olmlint==\(.*\)"/\1/' || true)
[ "$pin" = "$version" ] || problem "pyproject.toml pins olmlint==$pin, Cargo.toml has $version"

if [ $# -gt 0 ]; then
  tag=${1#refs/tags/}
  [ "$tag" = "v$version" ] || problem "tag '$tag' does not match Cargo.toml's version: expected v$version"
fi

[ "$problems" -eq 0 ] || exit 1
echo "$version"
