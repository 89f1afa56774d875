#!/usr/bin/env python3
"""Regenerates tests/data/masterminds-semver/{constraints,versions}.tsv, the differential table
of olmlint's Masterminds/semver port (crates/olmlint-semantics/src/mmsemver.rs), from
Masterminds/semver's own tests (constraints_test.go, version_test.go).

    scripts/masterminds-vectors.py SOURCE [REV]

SOURCE is a checkout of github.com/Masterminds/semver (a directory with the two test files) or
a git directory of it, read at REV (default HEAD). Every row of every test table is written, in
upstream's order; rows olmlint does not run (APIs operator-controller does not use) are written
with the verdict `n/a` (the README says why). A test function this script does not know, or a
table whose shape changed, stops it: a new upstream version must be looked at, not skipped.
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "masterminds-semver")


def read(source, rev, name):
    if os.path.isfile(os.path.join(source, name)):
        with open(os.path.join(source, name), encoding="utf-8") as f:
            return f.read()
    return subprocess.check_output(
        ["git", "-C", source, "show", f"{rev}:{name}"], text=True
    )


TOKEN = re.compile(
    r'\s+|//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|`[^`]*`|[A-Za-z_][A-Za-z0-9_.]*|-?[0-9]+|:=|.',
    re.S,
)


def go_string(tok):
    if tok.startswith("`"):
        return tok[1:-1]
    body, out, i = tok[1:-1], [], 0
    simple = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    while i < len(body):
        c = body[i]
        if c == "\\":
            n = body[i + 1]
            if n not in simple:
                raise SystemExit(f"unhandled escape \\{n} in {tok}")
            out.append(simple[n])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokens(src):
    out = []
    for m in TOKEN.finditer(src):
        t = m.group(0)
        if t.isspace() or t.startswith("//") or t.startswith("/*"):
            continue
        out.append(t)
    return out


def functions(src):
    """Test and fuzz functions: name -> token list of the body."""
    toks = tokens(src)
    funcs, i = {}, 0
    while i < len(toks):
        if toks[i] == "func" and i + 1 < len(toks) and re.match(r"(Test|Fuzz)", toks[i + 1]):
            name = toks[i + 1]
            j = toks.index("{", i)
            depth, k = 0, j
            while True:
                if toks[k] == "{":
                    depth += 1
                elif toks[k] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            funcs[name] = toks[j + 1 : k]
            i = k
        i += 1
    return funcs


def value(toks, i):
    """A literal at toks[i]: (python value, next index) or None."""
    t = toks[i]
    if t[0] in "\"`":
        return go_string(t), i + 1
    if re.fullmatch(r"-?[0-9]+", t):
        return int(t), i + 1
    if t == "MustParse" and toks[i + 1] == "(" and toks[i + 3] == ")":
        return ("MustParse", go_string(toks[i + 2])), i + 4
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", t):
        return {"true": True, "false": False, "nil": None}.get(t, ("ident", t)), i + 1
    return None


def tables(body):
    """The rows of each literal table in a function body: [(table, subtest, [rows])]. A table
    is `NAME := []struct{...}{ {..}, ... }` or `NAME := []string{ .. }`."""
    out, subtest, i = [], "", 0
    while i < len(body):
        if body[i] == "t.Run" and body[i + 1] == "(":
            subtest = go_string(body[i + 2])
        if i + 3 < len(body) and body[i + 1] == ":=" and body[i + 2] == "[" and body[i + 3] == "]":
            name, j = body[i], i + 4
            if body[j] == "struct":
                j = body.index("}", j) + 1  # the field list
                rows, j = struct_rows(body, j)
            elif body[j] == "string":
                rows, j = string_rows(body, j + 1)
            else:
                raise SystemExit(f"unknown table type {body[j]}")
            out.append((name, subtest, rows))
            i = j
            continue
        i += 1
    return out


def struct_rows(body, j):
    assert body[j] == "{", body[j : j + 5]
    j += 1
    rows = []
    while body[j] != "}":
        assert body[j] == "{", body[j : j + 8]
        j += 1
        row = []
        while body[j] != "}":
            v = value(body, j)
            if v is None:
                raise SystemExit(f"not a literal: {body[j:j + 6]}")
            row.append(v[0])
            j = v[1]
            if body[j] == ",":
                j += 1
        rows.append(row)
        j += 1
        if body[j] == ",":
            j += 1
    return rows, j + 1


def string_rows(body, j):
    assert body[j] == "{"
    j += 1
    rows = []
    while body[j] != "}":
        v = value(body, j)
        rows.append([v[0]])
        j = v[1]
        if body[j] == ",":
            j += 1
    return rows, j + 1


def cell(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "nil"
    if isinstance(v, tuple):
        return v[1]
    s = str(v)
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def go_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def need(body_text, snippet):
    """Fails unless the body has the snippet (token spacing ignored)."""
    if snippet.replace(" ", "") not in body_text.replace(" ", ""):
        raise SystemExit(f"upstream changed: {snippet!r} not found")


ERRORS = {
    "ErrInvalidSemVer": "invalid semantic version",
    "ErrEmptyString": "version string empty",
    "ErrInvalidCharacters": "invalid characters in version",
    "ErrSegmentStartsZero": "version segment starts with 0",
    "ErrInvalidMetadata": "invalid metadata string",
    "ErrInvalidPrerelease": "invalid prerelease string",
}


def err_text(v):
    return "ok" if v is None else ERRORS[v[1]]


def constraint_rows(src):
    funcs = functions(src)
    rows = []
    add = lambda *r: rows.append(r)
    for name, body in funcs.items():
        text = " ".join(body)
        ts = tables(body)
        if name == "TestParseConstraint":
            (_, _, tab), = ts
            for inp, f, v, err in tab:
                add(name, inp, "", "error" if err else f"{f[1]} {v}")
        elif name in ("TestConstraintCheck", "TestConstraintsCheck",
                      "TestConstraintsCheckIncludePrerelease"):
            (_, _, tab), = ts
            for c, v, ok in tab:
                add(name, c, v, cell(ok))
        elif name == "TestNewConstraint":
            (_, _, tab), = ts
            for inp, ors, count, err in tab:
                add(name, inp, "", "error" if err else f"ors={ors} count={count}")
        elif name == "TestRewriteRange":
            (_, _, tab), = ts
            for c, nc in tab:
                add(name, c, "", go_quote(nc))
        elif name == "TestIsX":
            (_, _, tab), = ts
            for t, c in tab:
                add(name, t, "", cell(c))
        elif name in ("TestConstraintsValidate", "TestConstraintsValidateIncludePrerelease"):
            (t1, _, tab), (t2, _, tab2) = ts
            assert (t1, t2) == ("tests", "tests2")
            for c, v, ok in tab:
                add(name, c, v, cell(ok))
            # The one case written out, not as a table row.
            need(text, 'NewConstraint ( "!= 1.2.5, ^2, <= 1.1.x" )')
            need(text, 'StrictNewVersion ( "1.2.3" )')
            need(text, 'len ( msgs ) != 2')
            need(text, '`"1.2.3" is less than "2"`')
            need(text, '`"1.2.3" is greater than "1.1.x"`')
            add(name + "/all", "!= 1.2.5, ^2, <= 1.1.x", "1.2.3",
                '"1.2.3" is less than "2" ;; "1.2.3" is greater than "1.1.x"')
            for c, v, msg in tab2:
                add(name + "/first", c, v, msg)
        elif name in ("TestConstraintString", "TestTextMarshalConstraints",
                      "TestTextUnmarshalConstraints"):
            (_, _, tab), = ts
            for c, want in tab:
                add(name, c, "", want)
        elif name == "FuzzNewConstraint":
            (_, _, tab), = ts
            for (c,) in tab:
                add(name, c, "", "no-panic")
        else:
            raise SystemExit(f"constraints_test.go: unknown test {name}")
    return rows


def version_rows(src):
    funcs = functions(src)
    rows = []
    add = lambda *r: rows.append(r)
    for name, body in funcs.items():
        text = " ".join(body)
        ts = tables(body)
        if name == "TestStrictNewVersion":
            (_, _, tab), = ts
            for v, err in tab:
                add(name, v, "", "error" if err else "ok")
        elif name == "TestNewVersion":
            for _, sub, tab in ts:
                na = sub == "Without loose NewVersion"
                for v, err in tab:
                    add(f"{name}/{sub}", v, "", "n/a" if na else ("error" if err else "ok"))
        elif name == "TestNewVersionCheckError":
            for _, sub, tab in ts:
                for v, err in tab:
                    add(f"{name}/{sub}", v, err_text(err), "n/a")
        elif name == "TestNew":
            need(text, 'New ( 0 , 1 , 2 , "" , "" )')
            need(text, 'New ( 1 , 2 , 3 , "alpha.1" , "foo.bar" )')
            add(name, "0,1,2,,", "", "0.1.2")
            add(name, "1,2,3,alpha.1,foo.bar", "", "1.2.3-alpha.1+foo.bar")
        elif name == "TestOriginal":
            (_, _, tab), = ts
            for (v,) in tab:
                add(name, v, "", v)
        elif name == "TestParts":
            need(text, 'NewVersion ( "1.2.3-beta.1+build.123" )')
            add(name, "1.2.3-beta.1+build.123", "", "1 2 3 beta.1 build.123")
        elif name == "TestCoerceString":
            (_, _, tab), = ts
            for v, want in tab:
                add(name, v, "", want)
        elif name == "TestCompare":
            (_, _, tab), = ts
            for a, b, want in tab:
                add(name, a, b, str(want))
        elif name in ("TestLessThan", "TestLessThanEqual", "TestGreaterThan",
                      "TestGreaterThanEqual", "TestEqual"):
            (_, _, tab), = ts
            for a, b, want in tab:
                na = a is None or b is None
                add(name, cell(a), cell(b), "n/a" if na else cell(want))
        elif name == "TestInc":
            (_, _, tab), = ts
            for v, want, how, orig in tab:
                add(name, v, how, "n/a")
        elif name in ("TestIncPatchOverflow", "TestIncMinorOverflow", "TestIncMajorOverflow",
                      "TestJsonMarshal", "TestJsonUnmarshal", "TestTextMarshal",
                      "TestTextUnmarshal", "TestSQLScanner", "TestDriverValuer"):
            add(name, "", "", "n/a")
        elif name in ("TestSetPrerelease", "TestSetMetadata"):
            (_, _, tab), = ts
            for v, x, *_ in tab:
                add(name, v, x, "n/a")
        elif name == "TestOriginalVPrefix":
            (_, _, tab), = ts
            for v, p in tab:
                add(name, v, p, "n/a")
        elif name in ("TestValidatePrerelease", "TestValidateMetadata"):
            (_, _, tab), = ts
            for p, err in tab:
                add(name, p, "", err_text(err))
        elif name in ("FuzzNewVersion", "FuzzStrictNewVersion"):
            (_, _, tab), = ts
            for (v,) in tab:
                add(name, v, "", "no-panic")
        else:
            raise SystemExit(f"version_test.go: unknown test {name}")
    return rows


def write(path, header, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            cells = [cell(c) if c != "" else "" for c in r]
            f.write("\t".join(cells) + "\n")


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    source, rev = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "HEAD"
    os.makedirs(OUT, exist_ok=True)
    c = constraint_rows(read(source, rev, "constraints_test.go"))
    v = version_rows(read(source, rev, "version_test.go"))
    write(os.path.join(OUT, "constraints.tsv"), ["test", "constraint", "version", "want"], c)
    write(os.path.join(OUT, "versions.tsv"), ["test", "version", "other", "want"], v)
    print(f"constraints.tsv: {len(c)} rows, versions.tsv: {len(v)} rows")


if __name__ == "__main__":
    main()
