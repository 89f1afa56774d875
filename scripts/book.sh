#!/usr/bin/env bash
# Builds the documentation book (docs/, mdBook) with one page per rule generated from rules/*.md,
# the rules' only source: the pages are made at build time and never committed.
#
#   scripts/book.sh [OUT]        OUT defaults to target/book
#
# OUT/source is docs/ with the rule pages added (book.toml, src/, the chapters docs/*.md that
# src/ includes); OUT/html is the book (open OUT/html/index.html). MDBOOK names the mdbook
# binary (default: mdbook on PATH; `cargo install mdbook --locked` installs it). While editing
# the hand-written chapters, `mdbook serve docs` shows them live, without the rule pages.
# tests/it/book.rs runs this script and checks every link of the result.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mdbook=${MDBOOK:-mdbook}
out=${1:-$root/target/book}
mkdir -p "$out"
out=$(cd "$out" && pwd)
blob=https://github.com/olmlint/olmlint/blob/main

if ! command -v "$mdbook" >/dev/null 2>&1; then
    echo "book.sh: mdbook not found ($mdbook): install it with \`cargo install mdbook --locked\`, or set MDBOOK to its path" >&2
    exit 2
fi

stage=$out/source
rm -rf "$stage" "$out/html"
mkdir -p "$stage/src/rules"
cp "$root/docs/book.toml" "$root"/docs/*.md "$stage/"
cp -R "$root/docs/src/." "$stage/src/"

# One page per rule: its ID, name, default severity and summary from the front matter, then
# the body as `olmlint explain` prints it. Also a row of the index and an entry of SUMMARY.md.
index=$stage/index-rows.md
entries=$stage/summary-entries.md
: >"$index"
: >"$entries"
rules=0
for file in "$root"/rules/OLM*.md; do
    id=$(basename "$file" .md)
    awk -v id="$id" -v blob="$blob" -v page="$stage/src/rules/$id.md" \
        -v index_file="$index" -v entries="$entries" '
        function field(line) { sub(/^[^:]*:[ \t]*/, "", line); return line }
        NR == 1 && $0 == "---" { front = 1; next }
        front && $0 == "---" { front = 0; body = 1; next }
        front && /^name:/ { name = field($0) }
        front && /^severity:/ { severity = field($0) }
        front && /^summary:/ { summary = field($0) }
        front && /^enabled:/ { off = (field($0) == "false") }
        body { text = text $0 "\n" }
        END {
            if (name == "" || summary == "" || !body) {
                printf "book.sh: rules/%s.md has no front matter with name and summary\n", id > "/dev/stderr"
                exit 1
            }
            if (severity == "") severity = "error"
            level = severity (off ? " (off by default)" : "")
            sub(/^\n+/, "", text); sub(/\n+$/, "\n", text)
            printf "# %s %s\n\nDefault severity: **%s**\n\n%s\n\n%s\n", id, name, level, summary, text > page
            printf "---\n\nSource: [`rules/%s.md`](%s/rules/%s.md); `olmlint explain %s` prints this page.\n", id, blob, id, id > page
            row = summary; gsub(/\|/, "\\|", row)
            printf "| [%s](rules/%s.md) | `%s` | %s | %s |\n", id, id, name, level, row >> index_file
            printf "  - [%s %s](rules/%s.md)\n", id, name, id >> entries
        }' "$file"
    rules=$((rules + 1))
done
if [ "$rules" -eq 0 ]; then
    echo "book.sh: no rules/OLM*.md found under $root" >&2
    exit 1
fi

# The index: a table of every rule at the end of the Rules chapter.
{
    printf "\n## All rules\n\n%s rules; \`olmlint rules\` prints the same list.\n\n" "$rules"
    printf '| rule | name | default severity | summary |\n|---|---|---|---|\n'
    cat "$index"
} >>"$stage/src/rules.md"

# The rule pages nested under the Rules chapter in SUMMARY.md.
summary=$stage/src/SUMMARY.md
if ! grep -qx -- '- \[Rules\](rules.md)' "$summary"; then
    echo "book.sh: docs/src/SUMMARY.md has no line \`- [Rules](rules.md)\` to put the rule pages under" >&2
    exit 1
fi
awk -v entries="$entries" '
    { print }
    $0 == "- [Rules](rules.md)" { while ((getline line < entries) > 0) print line }
' "$summary" >"$summary.new"
mv "$summary.new" "$summary"
rm "$index" "$entries"

"$mdbook" build "$stage" --dest-dir "$out/html"
echo "book.sh: $rules rule pages; the book is $out/html/index.html"
