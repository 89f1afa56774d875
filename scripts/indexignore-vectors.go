// Command indexignore-vectors writes tests/data/indexignore-vectors.json, the differential
// vectors of olmlint's `.indexignore` matcher (tests/it/indexignore.rs): generated file trees
// with generated `.indexignore` files, and for every file whether opm reads it. The verdicts
// come from the real code: joelanford/ignore's NewMatcher (go-git's gitignore patterns) and
// the walk of operator-registry's alpha/declcfg walkFiles, copied below line for line since
// it is unexported. Run it through scripts/indexignore-vectors.sh.
package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/joelanford/ignore"
)

const indexIgnoreFilename = ".indexignore"

// One case: `.indexignore` contents by directory ("" is the walked root), the files of the
// tree, and one character per file: '1' when opm skips it, '0' when opm reads it.
type vector struct {
	Ignore  map[string]string `json:"ignore"`
	Files   []string          `json:"files"`
	Ignored string            `json:"ignored"`
}

// opmReads is operator-registry's alpha/declcfg walkFiles over os.DirFS(root), as
// `opm validate` and `opm render` call it: the files it hands on to be parsed.
func opmReads(root string) (map[string]bool, error) {
	fsys := os.DirFS(root)
	matcher, err := ignore.NewMatcher(fsys, indexIgnoreFilename)
	if err != nil {
		return nil, err
	}
	read := map[string]bool{}
	err = fs.WalkDir(fsys, ".", func(path string, info fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || info.Name() == indexIgnoreFilename || matcher.Match(path, false) {
			return nil
		}
		read[path] = true
		return nil
	})
	return read, err
}

// Directory and file names: dots, names that sort before ".indexignore" ("-pre", ".a", so
// that their `.indexignore` comes first in opm's walk), glob characters, a backslash,
// non-ASCII, a name that is a directory in one place and a file in another.
var dirNames = []string{"a", "b", "docs", "sub", "x.d", "v4.18", "-pre", ".hid", ".a", "é", "lib.json", "A", "[x]", "op"}
var fileNames = []string{
	"catalog.json", "README.md", "x.yaml", "a", "b.json", ".hid", "docs", "c.JSON", "index.yml",
	"é.json", "f[1].json", "q?.md", "st*r.yaml", "back\\slash", "#c", "!bang", "sp ", "x.d",
	"-pre.json", "..json", "ab", "keep.json", "op",
}

// Pattern pieces beyond the names: globs, character classes (Go's negation is `^`; `[!a]`
// is a class holding `!`), escapes, malformed patterns (which never match in Go).
var globs = []string{
	"*", "**", "*.json", "*.md", "*.y?ml", "?", "??", "?*", "[a-c]*", "[^a]*", "[!a]*", "[a-]",
	"[]a]", "[", "x\\", "\\*", "\\#c", "\\!bang", "\\[x\\]", "*.JSON", "**.json", "a**", "é*",
	"?.json", "[é]*", "\\a", "*[", "*\\", "*.d", "v4.*", "[.]*", "*son", "?b", "[a-z][a-z]",
}

// Whole lines: comments, blanks, the patterns the issue names.
var specialLines = []string{
	"", "#comment", "# x", "   ", "\t", "!", "/", "//", "**", "**/", "/**", "**/*", "!*.json",
	"!**/", "!*/", "*/", "docs/", "!docs/", "**/docs", "**/docs/**", "/*", "/*/", "*/*",
}

type gen struct{ r *rand.Rand }

func (g gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }
func (g gen) chance(p float64) bool   { return g.r.Float64() < p }

// A name of the tree, sometimes globbed (by characters: the vectors are UTF-8).
func (g gen) nameSegment(names []string) string {
	n := []rune(g.pick(names))
	switch {
	case g.chance(0.15) && len(n) > 1:
		return "*" + string(n[len(n)/2:])
	case g.chance(0.1) && len(n) > 1:
		return string(n[:1]) + "*"
	case g.chance(0.1) && len(n) > 1:
		i := g.r.IntN(len(n))
		return string(n[:i]) + "?" + string(n[i+1:])
	}
	return string(n)
}

func (g gen) line(names []string) string {
	if g.chance(0.12) {
		return g.pick(specialLines)
	}
	var segs []string
	n := 1 + g.r.IntN(3)
	if g.chance(0.5) {
		n = 1
	}
	for i := 0; i < n; i++ {
		if g.chance(0.55) {
			segs = append(segs, g.nameSegment(names))
		} else {
			segs = append(segs, g.pick(globs))
		}
	}
	if g.chance(0.08) {
		at := g.r.IntN(len(segs) + 1)
		segs = append(segs[:at], append([]string{"**"}, segs[at:]...)...)
	}
	p := strings.Join(segs, "/")
	if g.chance(0.15) {
		p = "/" + p
	}
	if g.chance(0.2) {
		p += "/"
	}
	if g.chance(0.25) {
		if g.chance(0.1) {
			p = "! " + p
		} else {
			p = "!" + p
		}
	}
	switch {
	case g.chance(0.05):
		p = "  " + p
	case g.chance(0.05):
		p += "  "
	case g.chance(0.03):
		p += "\r"
	case g.chance(0.02):
		p += "\\ "
	}
	return p
}

// A tree: 3 to 8 files up to three directories deep, no path both a file and a directory.
func (g gen) tree() []string {
	files := map[string]bool{}
	dirs := map[string]bool{}
	want := 3 + g.r.IntN(6)
	for tries := 0; len(files) < want && tries < 100; tries++ {
		depth := []int{0, 1, 1, 2, 2, 3}[g.r.IntN(6)]
		var comps []string
		for i := 0; i < depth; i++ {
			comps = append(comps, g.pick(dirNames))
		}
		comps = append(comps, g.pick(fileNames))
		path := strings.Join(comps, "/")
		clash := files[path] || dirs[path]
		for i := 1; i < len(comps); i++ {
			clash = clash || files[strings.Join(comps[:i], "/")]
		}
		if clash {
			continue
		}
		files[path] = true
		for i := 1; i < len(comps); i++ {
			dirs[strings.Join(comps[:i], "/")] = true
		}
	}
	var out []string
	for f := range files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// The names of a tree's directories and files, the directories themselves ("" first).
func parts(files []string) (names []string, dirs []string) {
	seenName := map[string]bool{}
	seenDir := map[string]bool{"": true}
	dirs = []string{""}
	for _, f := range files {
		comps := strings.Split(f, "/")
		for i, c := range comps {
			if !seenName[c] {
				seenName[c] = true
				names = append(names, c)
			}
			if i > 0 {
				d := strings.Join(comps[:i], "/")
				if !seenDir[d] {
					seenDir[d] = true
					dirs = append(dirs, d)
				}
			}
		}
	}
	sort.Strings(names)
	sort.Strings(dirs)
	return names, dirs
}

func (g gen) randomCase() vector {
	files := g.tree()
	names, dirs := parts(files)
	ignores := map[string]string{}
	for _, d := range dirs {
		if (d == "" && g.chance(0.9)) || (d != "" && g.chance(0.25) && len(ignores) < 3) {
			var lines []string
			for i := 1 + g.r.IntN(4); i > 0; i-- {
				lines = append(lines, g.line(names))
			}
			content := strings.Join(lines, "\n")
			if g.chance(0.8) {
				content += "\n"
			}
			ignores[d] = content
		}
	}
	return vector{Ignore: ignores, Files: files}
}

// Cases written by hand first: the layouts the issue and the docs name.
func fixedCases() []vector {
	c := func(ignores map[string]string, files ...string) vector {
		sort.Strings(files)
		return vector{Ignore: ignores, Files: files}
	}
	deep := []string{"README.md", "catalog.json", "op/catalog.json", "op/README.md", "op/sub/x.yaml", "op/sub/y.json", "docs/z.json"}
	return []vector{
		c(map[string]string{"": "**/*\n!*.json\n"}, deep...),
		c(map[string]string{"": "*\n!*.json\n"}, deep...),
		c(map[string]string{"": "*\n!*/\n!*.json\n"}, deep...),
		c(map[string]string{"": "docs/\n"}, "docs/a.json", "docs/sub/b.json", "x/docs/c.json", "docs.json", "a/docs"),
		c(map[string]string{"": "/docs/\n"}, "docs/a.json", "docs/sub/b.json", "x/docs/c.json", "docs.json"),
		c(map[string]string{"": "docs\n"}, "docs/a.json", "x/docs/c.json", "a/docs"),
		c(map[string]string{"": "*.json\n", "a": "!x.json\n"}, "a/x.json", "a/y.json", "x.json", "a/b/x.json"),
		c(map[string]string{"": "!keep.json\n", "-pre": "*.json\n"}, "-pre/keep.json", "-pre/other.json"),
		c(map[string]string{"": "!keep.json\n", "op": "*.json\n"}, "op/keep.json", "op/other.json"),
		c(map[string]string{"": "/a\n"}, "a/x.json", "b/a/x.json", "a.json"),
		c(map[string]string{"sub": "/x.json\n"}, "sub/x.json", "sub/d/x.json", "x.json"),
		c(map[string]string{"": "a/**\n"}, "a/x.json", "a/b/c.json", "b/a/x.json"),
		c(map[string]string{"": "**/b\n"}, "b", "x/b", "a/b/c.json", "a/c/d.json"),
		c(map[string]string{"": "a/**/b\n"}, "a/b", "a/x/b", "a/x/y/b/c", "a/c"),
		c(map[string]string{"": "README.md\n.hidden\n"}, "README.md", ".hidden/x.yaml", "catalog.txt"),
	}
}

func materialize(dir string, v vector) error {
	for _, f := range v.Files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			return err
		}
	}
	for d, content := range v.Ignore {
		p := filepath.Join(dir, filepath.FromSlash(d), indexIgnoreFilename)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func verdicts(tmp string, i int, v vector) (vector, error) {
	// JSON strings hold UTF-8 only: an invalid byte would be written as U+FFFD, not as tested.
	for d, content := range v.Ignore {
		if !utf8.ValidString(d) || !utf8.ValidString(content) {
			return v, fmt.Errorf("case %d: not UTF-8: %q", i, content)
		}
	}
	dir := filepath.Join(tmp, fmt.Sprint(i))
	if err := materialize(dir, v); err != nil {
		return v, err
	}
	read, err := opmReads(dir)
	if err != nil {
		return v, fmt.Errorf("case %d: %w", i, err)
	}
	var b strings.Builder
	for _, f := range v.Files {
		if read[f] {
			b.WriteByte('0')
			delete(read, f)
		} else {
			b.WriteByte('1')
		}
	}
	if len(read) > 0 {
		return v, fmt.Errorf("case %d: opm read files not in the case: %v", i, read)
	}
	v.Ignored = b.String()
	return v, os.RemoveAll(dir)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: indexignore-vectors CASES > vectors.json")
		os.Exit(2)
	}
	var n int
	if _, err := fmt.Sscan(os.Args[1], &n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "indexignore-vectors")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	g := gen{rand.New(rand.NewPCG(45, 2024))}
	cases := fixedCases()
	for len(cases) < n {
		cases = append(cases, g.randomCase())
	}
	fmt.Println("[")
	for i, v := range cases {
		v, err := verdicts(tmp, i, v)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		line, err := json.Marshal(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sep := ","
		if i == len(cases)-1 {
			sep = ""
		}
		fmt.Printf("%s%s\n", line, sep)
	}
	fmt.Println("]")
}
