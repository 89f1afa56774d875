#!/usr/bin/env python3
"""Replay real pull requests of an operator pipeline repository (community-operators-prod,
certified-operators) the way the GitHub Action lints them, and summarise the findings.

    scripts/replay-prs.py GIT_DIR WORK_DIR N --olmlint [LABEL=]PATH [--olmlint ...]
                          [--merged | --unmerged | --both] --out OUT_DIR [options]

GIT_DIR is a git directory holding the repository's main branch and its pull refs
(`refs/pull/<N>/head`): a bare mirror (`git clone --mirror`) or the `.git` of a clone that fetched
`+refs/pull/*/head:refs/pull/*/head`. It is only read. Blobs the mirror lacks (a partial clone)
are tolerated: a pull request that changes one is skipped, and one whose operators lack a file is
run and flagged.

WORK_DIR receives one non-bare repository (`WORK_DIR/repo`) that borrows GIT_DIR's objects
(objects/info/alternates) and whose work tree is switched from one pull request head to the next
with `git checkout` (only the files that differ are written; the first checkout writes the whole
repository, about 2.5 GB for either pipeline repository). Blobs missing from GIT_DIR are kept out
of the work tree with sparse-checkout patterns, so git never tries to write them.

Selection: pull requests are read from the highest number down; one counts when its change
(merge-base -> head) touches `operators/`, `catalogs/`, `config.yaml` or a `ci.yaml`. With
--both (the default), the N most recent are N/2 merged and N - N/2 not merged; --merged and
--unmerged take N of one kind. A pull request is merged when main's first-parent history holds
its squash commit (subject ending in "(#N)") or its merge commit ("Merge pull request #N"), or
its head is an ancestor of main. Otherwise it is not merged (open or closed; the mirror cannot
tell). Its base is the merge-base of its head with main as main was just before the merge
(merged) or with main now (not merged).

Each selected pull request is run at the repository root, work tree at the PR head, with
`refs/remotes/origin/main` set to the base, as the Action runs it with
`args: --changed-since origin/main` (paths after `--` only with --path):

    olmlint lint -f json -o REPORT --fail-on error --changed-since origin/main --only-new

one binary after the other, one pull request at a time. OUT_DIR gets prs/<N>.json (the pull
request, its base, the files and operators it touches, and per binary the exit code, wall time,
stderr and findings), <LABEL>/<N>.json and <LABEL>/<N>.stderr (olmlint's own output),
summary.json and summary.txt (also printed): per binary exit codes, time median/p90/max, counts
per rule and severity on merged and not merged pull requests, every finding by pull request (for a
human to judge), the most frequent (rule, message pattern) pairs, and for a pull request that was
not merged the later merged ones that touched the same operator (a fix of what blocked it, or a
re-submission).

Options: --main REF (default: the main branch), --timeout SECONDS per run (default 600),
--max-scan K (read at most K pull requests while selecting; default 6000), --path P (repeatable:
paths passed after `--`, e.g. `.`, the Action's default `paths` input), --prs 10921,10900 (replay
exactly these), --any-file (choose pull requests by any changed file: an operator team's own
catalog repository, where catalogs live outside operators/ and catalogs/), --resume (keep the
results already in OUT_DIR for the same binary, head and base),
--summary-only (rebuild the summary from OUT_DIR without running anything), --quiet (no
progress lines). Python 3.8+, standard library only; git 2.25+ (2.44+ for a partial clone: older
gits fetch its missing blobs one at a time).
"""
import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

RELEVANT_TOP = ("operators/", "catalogs/")
ZERO = "0" * 40
STDERR_LINES = 5
MESSAGE_HEAD = 140


def log(quiet, *words):
    if not quiet:
        print(*words, file=sys.stderr, flush=True)


class Git:
    """git commands on one git directory (never a lazy fetch from a promisor remote)."""

    def __init__(self, git_dir, work_tree=None):
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.env = dict(os.environ, GIT_NO_LAZY_FETCH="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES"):
            self.env.pop(var, None)
        self._check = None
        self._present = {}

    def args(self, *words):
        base = ["git", "--git-dir", self.git_dir]
        if self.work_tree:
            base += ["--work-tree", self.work_tree]
        return base + list(words)

    def run(self, *words, check=True, binary=False):
        p = subprocess.run(self.args(*words), capture_output=True, env=self.env,
                           cwd=self.work_tree or None)
        if check and p.returncode != 0:
            err = p.stderr.decode(errors="replace").strip()
            raise RuntimeError(f"git {' '.join(words)}: {err}")
        return p.stdout if binary else p.stdout.decode("utf-8", "surrogateescape")

    def ok(self, *words):
        return subprocess.run(self.args(*words), capture_output=True, env=self.env).returncode == 0

    def present(self, oid):
        """Whether the object is in the repository (answers cached)."""
        if oid not in self._present:
            if self._check is None:
                self._check = subprocess.Popen(self.args("cat-file", "--batch-check"),
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               env=self.env)
            self._check.stdin.write(oid.encode() + b"\n")
            self._check.stdin.flush()
            self._present[oid] = not self._check.stdout.readline().rstrip().endswith(b"missing")
        return self._present[oid]

    def missing_in_tree(self, rev, *paths):
        """Paths of the regular files of REV (under PATHS) whose blobs the repository lacks."""
        out = self.run("ls-tree", "-r", "-l", "-z", "--full-tree", rev, "--", *paths, binary=True)
        missing = []
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, path = rec.split(b"\t", 1)
            parts = meta.split()
            if parts[1] == b"blob" and parts[3] == b"BAD":
                missing.append(path.decode("utf-8", "surrogateescape"))
        return missing


# ---------------------------------------------------------------- the repository's pull requests


def main_ref(git, wanted):
    if wanted:
        return wanted
    for ref in ("refs/heads/main", "refs/remotes/origin/main", "refs/heads/master"):
        if git.ok("rev-parse", "--verify", "--quiet", ref + "^{commit}"):
            return ref
    return "HEAD"


def pull_heads(git):
    heads = {}
    for line in git.run("for-each-ref", "--format=%(objectname) %(refname)").splitlines():
        oid, ref = line.split(" ", 1)
        m = re.search(r"(?:^|/)pull/(\d+)/head$", ref)
        if m:
            heads[int(m.group(1))] = oid
    return heads


def merges_on_main(git, main):
    """{PR number: (how, main commit, its parent on main, commit date)} from main's first-parent
    history, and the set of main's first-parent commits."""
    merged, first_parent = {}, set()
    out = git.run("log", "--first-parent", "--format=%H %P%x09%cI%x09%s", main)
    for line in out.splitlines():
        hashes, date, subject = line.split("\t", 2)
        commit, *parents = hashes.split()
        first_parent.add(commit)
        parent = parents[0] if parents else None
        m = re.match(r"Merge pull request #(\d+) ", subject)
        if m and len(parents) > 1:
            merged.setdefault(int(m.group(1)), ("merge-commit", commit, parent, date))
            continue
        m = re.search(r"\(#(\d+)\)$", subject)
        if m:
            merged.setdefault(int(m.group(1)), ("squash", commit, parent, date))
    return merged, first_parent


def operators_of(path):
    parts = path.split("/")
    if parts[0] == "operators" and len(parts) > 2:
        return parts[1]
    if parts[0] == "catalogs" and len(parts) > 3:
        return parts[2]
    return None


def relevant(path):
    return path.startswith(RELEVANT_TOP) or path == "config.yaml" or path.endswith("/ci.yaml") \
        or path == "ci.yaml"


def changed_files(git, base, head):
    """[(status, path, old oid, new oid)] of `git diff --raw base head`, renames split."""
    out = git.run("diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, head, binary=True)
    fields = out.split(b"\0")
    files = []
    for i in range(0, len(fields) - 1, 2):
        meta = fields[i].decode()
        if not meta.startswith(":"):
            break
        _, _, old, new, status = meta[1:].split()
        files.append((status, fields[i + 1].decode("utf-8", "surrogateescape"), old, new))
    return files


def describe(git, n, head, main, merged, main_commits, ancestors, any_file=False):
    """One pull request: state, base, relevant changed files (every file with `any_file`), or
    why it is left out."""
    pr = {"number": n, "head": head}
    if n in merged:
        how, commit, parent, date = merged[n]
        pr.update(state="merged", merged_how=how, merged_by=commit, merged_at=date)
        base_of = parent
    elif head in ancestors:
        if head in main_commits:
            return dict(pr, state="merged",
                        skip="its head is a commit of main: no change of its own")
        pr.update(state="merged", merged_how="ancestor")
        # The first commit of main's first-parent history that holds the head brought it in.
        landed = git.run("rev-list", "--first-parent", "--ancestry-path", "--reverse",
                         f"{head}..{main}").split()
        base_of = git.run("rev-parse", "--verify", "--quiet", landed[0] + "^1",
                          check=False).strip() if landed else None
    else:
        pr["state"] = "unmerged"
        base_of = main
    if base_of is None:
        return dict(pr, skip="merged as main's first commit")
    base = git.run("merge-base", base_of, head, check=False).strip()
    if not base:
        return dict(pr, skip="no merge-base with main")
    pr["base"] = base
    files = [f for f in changed_files(git, base, head) if any_file or relevant(f[1])]
    if not files:
        return dict(pr, skip="touches no operators/, catalogs/, config.yaml or ci.yaml")
    pr["files"] = [{"status": s, "path": p} for s, p, _, _ in files]
    pr["operators"] = sorted({operators_of(p) for _, p, _, _ in files} - {None})
    lacking = [p for _, p, old, new in files
               if (old != ZERO and not git.present(old)) or (new != ZERO and not git.present(new))]
    if lacking:
        return dict(pr, skip="changes files whose blobs the mirror lacks: "
                    + ", ".join(lacking[:3]))
    if pr["state"] == "unmerged":
        pr["content_on_main"] = content_on_main(git, main, files)
    return pr


def content_on_main(git, main, files):
    """Whether main now holds exactly the PR head's version of every file the PR changed."""
    paths = [p for _, p, _, _ in files]
    now = {}
    for i in range(0, len(paths), 200):
        out = git.run("ls-tree", "-z", "--full-tree", main, "--", *paths[i:i + 200], binary=True)
        for rec in out.split(b"\0"):
            if rec:
                meta, path = rec.split(b"\t", 1)
                now[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
    return all(now.get(p) == (None if new == ZERO else new) for _, p, _, new in files)


def select(git, args, main, quiet):
    heads = pull_heads(git)
    if not heads:
        sys.exit(f"{args.git_dir} holds no pull refs (refs/pull/<N>/head)")
    merged, main_commits = merges_on_main(git, main)
    ancestors = set(git.run("rev-list", main).split())
    want = {"merged": 0, "unmerged": 0}
    if args.kind == "both":
        want = {"merged": args.n - args.n // 2, "unmerged": args.n // 2}
    else:
        want[args.kind] = args.n
    only = set(args.prs or [])
    scanned, chosen, got = [], [], collections.Counter()
    for k, n in enumerate(sorted(heads, reverse=True)):
        # With --prs, every newer pull request is read too (for later_merged).
        if only and n < min(only):
            break
        if not only and (k >= args.max_scan or all(got[s] >= w for s, w in want.items())):
            break
        pr = describe(git, n, heads[n], main, merged, main_commits, ancestors, args.any_file)
        scanned.append(pr)
        if len(scanned) % 100 == 0:
            log(quiet, f"selecting: read {len(scanned)} pull requests, chose {dict(got)}")
        if "skip" not in pr and ((n in only) if only else got[pr["state"]] < want[pr["state"]]):
            got[pr["state"]] += 1
            chosen.append(pr)
    later_merged(scanned, chosen)
    return chosen, scanned, want


def later_merged(scanned, chosen):
    """For each chosen unmerged PR: the merged PRs with a higher number that touched one of its
    operators (the oldest first), and whether they touched one of its bundle directories."""
    merged = [p for p in scanned if p.get("state") == "merged" and "operators" in p]
    for pr in chosen:
        if pr["state"] != "unmerged":
            continue
        dirs = {"/".join(f["path"].split("/")[:3]) for f in pr["files"]
                if f["path"].startswith("operators/")}
        found = []
        for m in sorted(merged, key=lambda p: p["number"]):
            if m["number"] <= pr["number"] or not set(m["operators"]) & set(pr["operators"]):
                continue
            mdirs = {"/".join(f["path"].split("/")[:3]) for f in m["files"]}
            found.append({"number": m["number"], "same_bundle_dir": bool(dirs & mdirs)})
        pr["later_merged"] = found[:5]


# ---------------------------------------------------------------- the work tree


def prepare_work(args, quiet):
    repo = os.path.join(args.work_dir, "repo")
    git = Git(os.path.join(repo, ".git"), repo)
    if not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(repo, exist_ok=True)
        subprocess.run(["git", "init", "-q", repo], check=True)
        log(quiet, f"created {repo} (objects borrowed from {args.git_dir})")
    objects = os.path.join(os.path.abspath(args.git_dir), "objects")
    with open(os.path.join(repo, ".git", "objects", "info", "alternates"), "w") as f:
        f.write(objects + "\n")
    for key, value in (("core.sparseCheckout", "true"), ("core.sparseCheckoutCone", "false"),
                       ("advice.detachedHead", "false"), ("gc.auto", "0"),
                       ("user.name", "replay"), ("user.email", "replay@localhost")):
        git.run("config", key, value)
    return git


def checkout(work, src, pr):
    """Switch the work tree to the PR head; blobs the mirror lacks stay out (sparse patterns).
    Returns the paths left out."""
    missing = src.missing_in_tree(pr["head"])
    sparse = os.path.join(work.git_dir, "info", "sparse-checkout")
    os.makedirs(os.path.dirname(sparse), exist_ok=True)
    text = "/*\n" + "".join("!/" + glob_escape(p) + "\n" for p in sorted(missing))
    if not os.path.exists(sparse) or open(sparse).read() != text:
        with open(sparse, "w") as f:
            f.write(text)
    p = subprocess.run(work.args("checkout", "-q", "-f", "--detach", pr["head"]),
                       capture_output=True, env=work.env, cwd=work.work_tree)
    if p.returncode != 0:
        raise RuntimeError("git checkout failed: " + p.stderr.decode(errors="replace")[-500:])
    work.run("update-ref", "refs/remotes/origin/main", pr["base"])
    return missing


def glob_escape(path):
    return re.sub(r"([\\*?\[!#])", r"\\\1", path)


def context_missing(src, pr, missing_at_head):
    """Files of the PR's operators (bundles, ci.yaml, templates, mapped catalogs) missing from the
    work tree at head or from git at base: the lint lacks them."""
    ops = set(pr["operators"])
    mine = lambda p: operators_of(p) in ops
    at_base = src.missing_in_tree(pr["base"], "operators", "catalogs")
    return {"head": [p for p in missing_at_head if mine(p)],
            "base": [p for p in at_base if mine(p)]}


# ---------------------------------------------------------------- running olmlint


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_one(binary, label, pr, work, args, out_dir):
    report = os.path.join(out_dir, label, f"{pr['number']}.json")
    stderr_file = os.path.join(out_dir, label, f"{pr['number']}.stderr")
    if os.path.exists(report):
        os.remove(report)
    cmd = [binary["path"], "lint", "-f", "json", "-o", report, "--fail-on", "error",
           "--changed-since", "origin/main", "--only-new"]
    if args.path:
        cmd += ["--"] + args.path
    env = dict(os.environ)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "OLMLINT_CONFIG", "OLMLINT_FORMAT",
                "OLMLINT_FAIL_ON", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        env.pop(var, None)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=work.work_tree, capture_output=True, env=env,
                           timeout=args.timeout)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, err = "timeout", (e.stderr or b"").decode("utf-8", "replace")
    wall = round(time.monotonic() - start, 3)
    with open(stderr_file, "w") as f:
        f.write(err)
    result = {"binary": binary["path"], "sha256": binary["sha256"], "paths": args.path or [],
              "exit": rc, "wall": wall,
              "stderr_head": err.splitlines()[:STDERR_LINES], "findings": None, "summary": None}
    try:
        with open(report) as f:
            data = json.load(f)
        result["summary"] = data.get("summary")
        result["findings"] = [
            {k: d.get(k) for k in ("rule", "severity", "file", "line", "message", "package",
                                   "bundle")}
            for d in data.get("diagnostics", [])]
    except (OSError, ValueError):
        pass
    return result


def replay(args, chosen, binaries, quiet):
    src = Git(args.git_dir)
    work = prepare_work(args, quiet)
    order = sorted(chosen, key=lambda p: (commit_date(src, p["base"]), p["number"]))
    for label in binaries:
        os.makedirs(os.path.join(args.out, label), exist_ok=True)
    os.makedirs(os.path.join(args.out, "prs"), exist_ok=True)
    started = time.monotonic()
    for i, pr in enumerate(order, 1):
        path = os.path.join(args.out, "prs", f"{pr['number']}.json")
        old = load_json(path) if args.resume else None
        results = {}
        if old and old.get("head") == pr["head"] and old.get("base") == pr["base"]:
            results = {k: v for k, v in old.get("runs", {}).items()
                       if k in binaries and v.get("sha256") == binaries[k]["sha256"]
                       and v.get("paths") == (args.path or [])}
        if set(results) != set(binaries):
            t0 = time.monotonic()
            missing_at_head = checkout(work, src, pr)
            pr["checkout_seconds"] = round(time.monotonic() - t0, 3)
            pr["context_missing"] = context_missing(src, pr, missing_at_head)
            for label, binary in binaries.items():
                if label not in results:
                    results[label] = run_one(binary, label, pr, work, args, args.out)
        else:
            pr["context_missing"] = old.get("context_missing")
        pr["runs"] = results
        with open(path, "w") as f:
            json.dump(pr, f, indent=1)
        line = "  ".join(f"{k}: exit {r['exit']} {r['wall']:.2f}s {count(r, 'error')}E "
                         f"{count(r, 'warning')}W" for k, r in results.items())
        log(quiet, f"[{i}/{len(order)} {time.monotonic() - started:.0f}s] #{pr['number']} "
                   f"{pr['state']}: {line}")
    return order


def commit_date(git, rev):
    return int(git.run("log", "-1", "--format=%ct", rev).strip() or 0)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def count(result, severity):
    return sum(1 for d in result.get("findings") or [] if d["severity"] == severity)


# ---------------------------------------------------------------- the summary


def quantiles(values):
    if not values:
        return {"n": 0, "median": None, "p90": None, "max": None}
    v = sorted(values)
    p90 = v[min(len(v) - 1, max(0, -(-9 * len(v) // 10) - 1))]
    return {"n": len(v), "median": round(statistics.median(v), 3), "p90": p90, "max": v[-1]}


def pattern(message):
    """A message with its specifics (quoted names, versions, numbers, paths) replaced by '…'."""
    m = re.sub(r"`[^`]*`|\"[^\"]*\"|'[^']*'", "`…`", message.splitlines()[0] if message else "")
    m = re.sub(r"\b[\w.-]*\d[\w.+-]*\b", "…", m)
    m = re.sub(r"(?:[\w.-]+/)+[\w.-]+", "…", m)
    m = re.sub(r"\b(?!ci\.yaml\b)[\w-]+\.(?:yaml|yml|json)\b", "…", m)  # file names
    m = re.sub(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b", "…", m)  # kebab-case names (packages)
    m = re.sub(r"…(?:(?:, | and |–)…)+", "…", m)  # lists and ranges
    return m[:MESSAGE_HEAD]


def summarise(prs, binaries, meta):
    summary = {"meta": meta, "binaries": {}}
    for label in binaries:
        runs = [(p, p["runs"][label]) for p in prs if label in p.get("runs", {})]
        b = {"exit": {}, "time": {}, "rules": {}, "patterns": {}}
        for state in ("merged", "unmerged", "all"):
            sel = [(p, r) for p, r in runs if state == "all" or p["state"] == state]
            b["exit"][state] = dict(collections.Counter(str(r["exit"]) for _, r in sel))
            b["time"][state] = quantiles([r["wall"] for _, r in sel])
        rules = collections.defaultdict(
            lambda: {"merged": [0, set()], "unmerged": [0, set()], "incomplete": [0, set()]})
        patterns = collections.defaultdict(list)
        for p, r in runs:
            for d in r.get("findings") or []:
                cell = rules[f"{d['rule']} {d['severity']}"][p["state"]]
                cell[0] += 1
                cell[1].add(p["number"])
                if incomplete(p):
                    cell = rules[f"{d['rule']} {d['severity']}"]["incomplete"]
                    cell[0] += 1
                    cell[1].add(p["number"])
                if p["state"] == "merged":
                    patterns[(d["rule"], d["severity"], pattern(d["message"]))].append(
                        (p["number"], f"{d['file']}:{d['line']}"))
        b["rules"] = {k: {s: {"findings": c[0], "prs": len(c[1])} for s, c in v.items()}
                      for k, v in sorted(rules.items())}
        top = sorted(patterns.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        b["patterns"] = [{"rule": k[0], "severity": k[1], "pattern": k[2], "count": len(v),
                          "prs": len({n for n, _ in v}), "examples": examples(v)}
                         for k, v in top]
        summary["binaries"][label] = b
    return summary


def examples(occurrences, k=3):
    seen, out = set(), []
    for n, where in occurrences:
        if n not in seen:
            seen.add(n)
            out.append({"pr": n, "at": where})
        if len(out) == k:
            break
    return out


def fmt_time(t):
    if not t["n"]:
        return "no runs"
    return f"median {t['median']:.2f} s, p90 {t['p90']:.2f} s, max {t['max']:.2f} s ({t['n']} runs)"


def render(summary, prs, skipped, binaries):
    m = summary["meta"]
    states = collections.Counter(p["state"] for p in prs)
    lines = [
        f"Replay of {len(prs)} pull requests of {m['repository']} ({states['merged']} merged, "
        f"{states['unmerged']} not merged; asked {m['wanted']}), main at {m['main'][:12]} "
        f"({m['main_date']})",
        f"PR numbers #{min(p['number'] for p in prs)}..#{max(p['number'] for p in prs)}; "
        f"{m['scanned']} pull requests read while selecting, {len(skipped)} left out "
        f"({'; '.join(f'{n} {r}' for r, n in m['skip_reasons'].items()) or 'none'})",
        f"Run at the repository root, work tree at the PR head, origin/main = merge-base: "
        f"olmlint lint -f json -o REPORT --fail-on error --changed-since origin/main --only-new"
        + (" -- " + " ".join(m["paths"]) if m["paths"] else ""),
        (f"Replay took {m['replay_seconds']:.0f} s (selection, checkouts and runs)."
         if m["replay_seconds"] is not None else "Summary rebuilt from the results on disk."), ""]
    for label, b in summary["binaries"].items():
        path, digest = binaries[label]["path"], binaries[label]["sha256"][:12]
        lines += [f"== {label}: {path} (sha256 {digest})",
                  f"exit codes: merged {b['exit']['merged']}, not merged {b['exit']['unmerged']}"]
        for state in ("all", "merged", "unmerged"):
            lines.append(f"time {state:>8}: {fmt_time(b['time'][state])}")
        lines += ["", f"{'rule':<8} {'severity':<8} {'merged: findings (PRs)':>24} "
                      f"{'not merged: findings (PRs)':>28}  {'of which context incomplete':>28}"]
        for key, v in b["rules"].items():
            rule, sev = key.split()
            mm, uu, ii = v["merged"], v["unmerged"], v["incomplete"]
            lines.append(f"{rule:<8} {sev:<8} {mm['findings']:>17} ({mm['prs']:>4}) "
                         f"{uu['findings']:>21} ({uu['prs']:>4})  {ii['findings']:>21} "
                         f"({ii['prs']:>4})")
        lines.append("(context incomplete: the mirror lacks files of the PR's operators, e.g. a "
                     "catalog over its blob size limit; such findings may be artefacts)")
        lines += ["", f"-- most frequent (rule, message pattern) on merged PRs ({label})"]
        for t in b["patterns"][:30]:
            ex = ", ".join(f"#{e['pr']} {e['at']}" for e in t["examples"])
            lines.append(f"{t['count']:>4}x in {t['prs']:>3} PRs  {t['rule']} {t['severity']}: "
                         f"{t['pattern']}\n{'':>21}e.g. {ex}")
        lines.append("")
        lines += findings_by_pr(prs, label)
        failures = [(p, p["runs"][label]) for p in prs if label in p.get("runs", {})
                    and p["runs"][label]["exit"] not in (0, 1)]
        lines.append(f"-- runs that did not end with exit 0 or 1 ({label}): {len(failures)}")
        for p, r in failures:
            lines.append(f"#{p['number']} exit {r['exit']}: " + " | ".join(r["stderr_head"][:3]))
        lines.append("")
    if len(binaries) > 1:
        lines += differences(prs, list(binaries))
    incomplete = [p for p in prs if p.get("context_missing") and
                  (p["context_missing"]["head"] or p["context_missing"]["base"])]
    lines.append(f"-- PRs whose operators lack files in the mirror (run, but the lint misses "
                 f"them): {len(incomplete)}")
    for p in incomplete:
        cm = p["context_missing"]
        lines.append(f"#{p['number']} {p['state']}: {len(cm['head'])} at head, {len(cm['base'])} "
                     f"at base, e.g. {(cm['head'] + cm['base'])[0]}")
    return "\n".join(lines) + "\n"


def incomplete(p):
    """How many files of the PR's operators the mirror lacks (at head or base)."""
    cm = p.get("context_missing") or {}
    return len(set(cm.get("head", [])) | set(cm.get("base", [])))


def pr_label(p):
    lacks = f"; the mirror lacks {incomplete(p)} file(s) of its operators" if incomplete(p) else ""
    if p["state"] == "merged":
        return f"merged ({p.get('merged_how')}){lacks}"
    text = "not merged" + (", its files are on main as they are at its head"
                           if p.get("content_on_main") else "") + lacks
    later = p.get("later_merged") or []
    if later:
        text += "; later merged on the same operator: " + ", ".join(
            f"#{x['number']}" + (" (same bundle dir)" if x["same_bundle_dir"] else "")
            for x in later)
    return text


def findings_by_pr(prs, label):
    lines = []
    for state, title in (("merged", "merged"), ("unmerged", "not merged")):
        sel = [p for p in prs if p["state"] == state and label in p.get("runs", {})
               and any(d["severity"] in ("error", "warning")
                       for d in p["runs"][label].get("findings") or [])]
        lines.append(f"-- errors and warnings on {title} PRs ({label}): {len(sel)} PRs")
        for p in sorted(sel, key=lambda p: p["number"]):
            r = p["runs"][label]
            lines.append(f"#{p['number']} [{pr_label(p)}] exit {r['exit']}, {r['wall']:.2f} s, "
                         f"operators {', '.join(p['operators']) or '-'}")
            lines += grouped(r["findings"])
        lines.append("")
    return lines


def grouped(findings, shown=2):
    """Errors and warnings (infos are only counted), at most SHOWN per (rule, message pattern)."""
    groups = collections.OrderedDict()
    for d in findings:
        if d["severity"] in ("error", "warning"):
            groups.setdefault((d["rule"], d["severity"], pattern(d["message"])), []).append(d)
    lines = []
    for ds in groups.values():
        for d in ds[:shown]:
            msg = (d["message"] or "").splitlines()[0][:MESSAGE_HEAD] if d["message"] else ""
            lines.append(f"    {d['rule']} {d['severity']:<7} {d['file']}:{d['line']}  {msg}")
        if len(ds) > shown:
            files = sorted({d["file"] for d in ds[shown:]})
            lines.append(f"    ... and {len(ds) - shown} more like this in {len(files)} file(s), "
                         f"e.g. {files[0]}")
    infos = sum(1 for d in findings if d["severity"] not in ("error", "warning"))
    if infos:
        lines.append(f"    ({infos} info finding(s), not listed)")
    return lines


def differences(prs, labels):
    lines = [f"-- PRs whose findings differ between {' and '.join(labels)} (rule severity: counts)"]
    for p in sorted(prs, key=lambda p: p["number"]):
        counts = []
        for label in labels:
            r = p.get("runs", {}).get(label) or {}
            counts.append(collections.Counter(f"{d['rule']} {d['severity']}"
                                              for d in r.get("findings") or []))
        if any(c != counts[0] for c in counts[1:]):
            keys = sorted(set().union(*counts))
            cells = ", ".join(f"{k}: " + "/".join(str(c[k]) for c in counts) for k in keys)
            lines.append(f"#{p['number']} {p['state']}: {cells or 'exit codes only'}")
    return lines + [""]


# ---------------------------------------------------------------- command line


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("git_dir", help="bare mirror or .git directory with refs/pull/<N>/head")
    ap.add_argument("work_dir", help="scratch directory for the work tree (WORK_DIR/repo)")
    ap.add_argument("n", type=int, help="how many pull requests")
    ap.add_argument("--olmlint", action="append", required=True, metavar="[LABEL=]PATH",
                    help="a binary to run (repeatable); LABEL defaults to the file name")
    kind = ap.add_mutually_exclusive_group()
    for k in ("merged", "unmerged", "both"):
        kind.add_argument(f"--{k}", dest="kind", action="store_const", const=k,
                          help={"merged": "only merged pull requests",
                                "unmerged": "only pull requests that were not merged",
                                "both": "half and half (the default)"}[k])
    ap.set_defaults(kind="both")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--main", help="the main branch (default: refs/heads/main)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    ap.add_argument("--max-scan", type=int, default=6000,
                    help="read at most this many pull requests while selecting (default 6000)")
    ap.add_argument("--path", action="append", help="a path passed after `--` (repeatable)")
    ap.add_argument("--any-file", action="store_true",
                    help="choose pull requests by any changed file, not only operators/, catalogs/, "
                         "config.yaml and ci.yaml (an operator team's own catalog repository)")
    ap.add_argument("--prs", type=lambda s: [int(x) for x in s.split(",") if x],
                    help="replay exactly these pull requests (comma-separated numbers)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the results in OUT for the same binary, head, base and paths")
    ap.add_argument("--summary-only", action="store_true",
                    help="rebuild the summary from OUT without running anything")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)
    # A clone's work tree stands for its .git directory.
    p = subprocess.run(["git", "-C", args.git_dir, "rev-parse", "--absolute-git-dir"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        ap.error(f"{args.git_dir} is not a git repository")
    args.git_dir = p.stdout.strip()
    args.work_dir = os.path.abspath(args.work_dir)
    args.out = os.path.abspath(args.out)
    return args


def binaries_of(specs):
    binaries = {}
    for spec in specs:
        label, _, path = spec.rpartition("=")
        path = os.path.abspath(path)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"--olmlint {spec}: not an executable file")
        label = label or os.path.basename(path)
        if not re.fullmatch(r"[\w.+-]+", label) or label in binaries or label == "prs":
            sys.exit(f"--olmlint {spec}: the label must be unique, made of letters, digits, ._+-")
        binaries[label] = {"path": path, "sha256": sha256(path)}
    return binaries


def main(argv):
    args = parse_args(argv)
    if shutil.which("git") is None:
        sys.exit("git not found")
    binaries = binaries_of(args.olmlint)
    src = Git(args.git_dir)
    main_rev = src.run("rev-parse", "--verify", main_ref(src, args.main) + "^{commit}").strip()
    os.makedirs(args.out, exist_ok=True)
    started = time.monotonic()
    chosen, scanned, want = select(src, args, main_rev, args.quiet)
    skipped = [p for p in scanned if "skip" in p]
    if not chosen:
        sys.exit("no pull request matched")
    log(args.quiet, f"chose {len(chosen)} pull requests out of {len(scanned)} read "
                    f"({time.monotonic() - started:.0f} s)")
    if args.summary_only:
        prs = [dict(p, **(load_json(os.path.join(args.out, "prs", f"{p['number']}.json")) or {}))
               for p in chosen]
        prs = [p for p in prs if p.get("runs")]
    else:
        prs = replay(args, chosen, binaries, args.quiet)
    replay_seconds = None if args.summary_only else time.monotonic() - started
    meta = {
        "repository": os.path.basename(os.path.dirname(args.git_dir))
        if os.path.basename(args.git_dir) in ("repo", ".git") else os.path.basename(args.git_dir),
        "main": main_rev, "main_date": src.run("log", "-1", "--format=%cI", main_rev).strip(),
        "wanted": f"--prs {','.join(map(str, args.prs))}" if args.prs else f"{args.kind} {args.n}",
        "scanned": len(scanned), "paths": args.path or [],
        "skip_reasons": dict(collections.Counter(re.sub(r":.*", "", p["skip"]) for p in skipped)),
        "replay_seconds": replay_seconds,
    }
    summary = summarise(prs, binaries, meta)
    summary["prs"] = [
        {"number": p["number"], "state": p["state"], "operators": p["operators"],
         "files": len(p["files"]), "later_merged": p.get("later_merged"),
         "runs": {k: {"exit": r["exit"], "wall": r["wall"], "errors": count(r, "error"),
                      "warnings": count(r, "warning")} for k, r in p["runs"].items()}}
        for p in sorted(prs, key=lambda p: p["number"])]
    summary["skipped"] = [{"number": p["number"], "state": p["state"], "reason": p["skip"]}
                          for p in skipped]
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    text = render(summary, prs, skipped, binaries)
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main(sys.argv[1:])
