#!/usr/bin/env python3
"""Mimic tests/it/rule_docs.rs on a draft doc using the prebuilt binary (existing rules only).
Baseline convention: files under baseline/ are the OLD catalog, linted separately."""
import sys, os, re, json, subprocess, tempfile
BIN = os.environ.get("OLMLINT", "target/release/olmlint")

def section(body, title):
    i = body.find("## " + title)
    if i < 0: return None
    rest = body[i:]; rest = rest[rest.find("\n")+1:]
    j = rest.find("\n## ")
    return rest if j < 0 else rest[:j+1]

def files(sec):
    out = []; lines = iter(sec.splitlines())
    for line in lines:
        if not line.startswith("```"): continue
        info = line[3:]
        if not info: continue
        ext = "json" if info.startswith("json") else "yaml"
        name = next((w[5:] for w in info.split() if w.startswith("file=")), "catalog." + ext)
        body = []
        for l in lines:
            if l.startswith("```"): break
            body.append(l)
        out.append((name, "\n".join(body) + "\n"))
    return out

def lint(path, cfg):
    args = [BIN, "lint", "-f", "json", "-q", "--fail-on", "never"]
    args += ["--config", cfg] if cfg else ["--no-config"]
    args.append(path)
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return [f"EXIT {p.returncode}: {p.stderr.strip()}"]
    d = json.loads(p.stdout)
    return [f"{x['rule']} {x['severity']} {x['file']}:{x['line']} {x['message']}" for x in d["diagnostics"]]

def run(fs):
    with tempfile.TemporaryDirectory() as t:
        base = [(n[len("baseline/"):], b) for n, b in fs if n.startswith("baseline/")]
        new = [(n, b) for n, b in fs if not n.startswith("baseline/")]
        res = {}
        for label, group in (("new", new), ("baseline", base)):
            if not group: continue
            root = os.path.join(t, label)
            for n, b in group:
                p = os.path.join(root, n); os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, "w").write(b)
            cfg = os.path.join(root, ".olmlint.yaml")
            res[label] = lint(root, cfg if os.path.exists(cfg) else None)
        return res

for doc in sys.argv[1:]:
    body = open(doc).read()
    for title in ("Failing example", "Passing example"):
        sec = section(body, title)
        if sec is None: print(doc, "MISSING", title); continue
        fs = files(sec)
        r = run(fs)
        for label, msgs in r.items():
            status = "clean" if not msgs else "FINDINGS"
            print(f"{os.path.basename(doc)} {title} [{label}] {status} ({', '.join(n for n,_ in fs)})")
            for m in msgs: print("    ", m)
