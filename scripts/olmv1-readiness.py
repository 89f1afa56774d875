#!/usr/bin/env python3
"""Survey how ready catalogs and bundle-directory repositories are for OLM v1: for each
package, would a ClusterExtension naming only the package be installed, and if not, why.

    scripts/olmv1-readiness.py --olmlint PATH [--profile P ...] [--json OUT] [--markdown OUT]
                               [--verify-resolve N] [--keep DIR] [--timeout S] [--quiet]
                               [NAME=]REPO ... [--each [GROUP=]DIR ...]

Each REPO (an FBC catalog, a directory of catalogs, an operator repository with `operators/`
bundle directories and `catalogs/`, or any tree olmlint discovers) is run once per profile
(default: upstream, ocp-4.20, ocp-4.21), from inside REPO, as

    olmlint graph --target olmv1=PROFILE --no-config -f json -o TMP .

That one run is a full lint whose findings are overlaid on the bundles, and it gives, per
package of each catalog, the graph `OLM v1 (no channel)`: every bundle with its findings and,
as its head, the default pick (what a ClusterExtension naming only the package installs: the
highest version, non-deprecated first; OLM v1 never reads `defaultChannel`).

Package units. A package of one catalog is a unit. An operator repository's bundle
directories come as one catalog per group of OpenShift releases (`operators · OpenShift
4.12–4.15`); the views of a package whose OLM v1 graphs are the same count once, and a package
that the repository also serves from an FBC catalog (an `fbc.enabled` operator of
community-operators-prod or certified-operators, released from templates into `catalogs/`)
counts only there. Graphs without an OLM v1 graph (catalog templates, which no ClusterCatalog
serves) are skipped and counted.

Verdicts:
- a bundle is refused when it has an OLM711 finding (a dependency property: refused whenever
  it is selected; the rule is an error on default picks, a warning elsewhere) or an
  error-severity OLM750 (gating), OLM751 (bundle validator), OLM752 (bundle layout) or OLM755
  (a bundle name the API cannot hold) finding;
- a unit is ready when its default pick is not refused and needs no spec.config: with the
  SingleOwnNamespaceInstallSupport gate on, a bundle without AllNamespaces is installed only
  when the ClusterExtension sets watchNamespace (OLM750 info; counted apart);
- the reason counted for a refused bundle is the first one OLM v1 meets (dependencies at
  resolution, then the bundle reader, the gating checks, the validator, the status write);
  the JSON keeps them all;
- a distinct package (by name, per repository) is "ready everywhere" when every catalog
  serving it is ready for it, "ready somewhere" when one is.
OLM753 (apply-time refusals predicted: v1beta1 CRDs, webhook names, ...) and OLM754 (OLM v0
coupling) are warnings and no refusal; default picks with OLM753, and default picks other than
the defaultChannel head (OLM757), are counted apart.

--verify-resolve N cross-checks the default pick of up to N units per repository and profile
(units of directory catalogs, taken evenly) against
`olmlint resolve PKG --target olmv1=PROFILE --catalog DIR -f json` and lists mismatches.
--each [GROUP=]DIR adds every sub-directory of DIR as a repository of GROUP (default: DIR's
name); the summary has one row per group. --keep DIR keeps olmlint's graph JSON per repository
and profile. Output: markdown on stdout (or --markdown FILE), all data as JSON with --json.
Paths in the output are relative to each repository. Python 3.8+, standard library only.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

V1_GRAPH = "OLM v1 (no channel)"
REFUSING = ("OLM711", "OLM750", "OLM751", "OLM752", "OLM755")
# The order in which OLM v1 meets them: resolution's NoDependencyValidation, the bundle
# reader, the provider's gating checks, the bundle validator, the status write.
PIPELINE = ("OLM711", "OLM752", "OLM750", "OLM751", "OLM755")
PROFILES = ("upstream", "ocp-4.20", "ocp-4.21")
QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
KEPT_WORDS = ("AllNamespaces", "SingleNamespace", "OwnNamespace")


def refusals(node):
    """The findings on a bundle that make OLM v1 refuse it when it is selected."""
    return [
        f
        for f in node.get("findings") or []
        if f.get("rule") in REFUSING and (f["rule"] == "OLM711" or f.get("severity") == "error")
    ]


def reason(finding):
    """(rule, message) with names folded, so that one upstream message groups across bundles:
    `bundle "…" has a dependency declared via property "olm.gvk.required" which is …`."""
    msg = finding.get("message", "").split("\n")[0]
    # olmlint's own tail after the upstream text ("; OLM v1 picks this bundle ...",
    # " (and 2 more dependency properties)").
    for cut in ("; ", " (and "):
        i = msg.find(cut)
        if i > 0:
            msg = msg[:i]
    lead = "OLM v1 refuses this bundle: "
    if msg.startswith(lead):
        msg = msg[len(lead):]

    def fold(m):
        inner = m.group(0)[1:-1]
        if inner.startswith("olm.") or inner in KEPT_WORDS:
            return m.group(0)
        return m.group(0)[0] + "…" + m.group(0)[0]

    msg = QUOTED.sub(fold, msg)
    return finding["rule"], msg if len(msg) <= 140 else msg[:139] + "…"


def in_pipeline_order(findings):
    """Distinct reasons, the first OLM v1 meets first."""
    return sorted({reason(f) for f in findings}, key=lambda x: (PIPELINE.index(x[0]), x[1]))


def base_catalog(label):
    """`operators · OpenShift 4.12–4.15` -> `operators`."""
    return label.split(" · ")[0]


def v1_graph(g):
    return next((c for c in g.get("channels", []) if c.get("name") == V1_GRAPH), None)


def run_graph(olmlint, name, repo, profile, timeout, keep):
    """One `olmlint graph` run: (graphs or None, exit code, seconds, stderr tail)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "graph.json")
        cmd = [olmlint, "graph", "--target", "olmv1=" + profile, "--no-config"]
        cmd += ["-f", "json", "-o", out, "."]
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=timeout)
            code, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            code, err = None, "timed out after %ss" % timeout
        seconds = time.monotonic() - start
        data = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                data = json.load(f)
            if keep:
                os.makedirs(keep, exist_ok=True)
                safe = re.sub(r"[^A-Za-z0-9._+-]", "_", name)
                with open(os.path.join(keep, "%s.%s.json" % (safe, profile)), "w") as f:
                    json.dump(data, f)
    return data, code, seconds, err.strip().splitlines()[-3:]


def collapse(graphs):
    """Package units out of the graphs (see the module doc): views of one package of a
    bundle-directory tree with the same OLM v1 graph once, packages also served from an FBC
    catalog of the repository only there."""
    trees = {base_catalog(g["catalog"]) for g in graphs if " · " in g.get("catalog", "")}
    served = collections.defaultdict(set)
    for g in graphs:
        if v1_graph(g):
            served[g["name"]].add(base_catalog(g["catalog"]))
    kept, seen = [], set()
    stats = {"views_collapsed": 0, "served_from_fbc_dropped": 0}
    for g in graphs:
        base = base_catalog(g.get("catalog", ""))
        if base in trees:
            if served[g["name"]] - {base}:
                stats["served_from_fbc_dropped"] += 1
                continue
            key = (base, g["name"], json.dumps(v1_graph(g), sort_keys=True))
            if key in seen:
                stats["views_collapsed"] += 1
                continue
            seen.add(key)
        kept.append(g)
    return kept, stats


def unit_of(g, v1):
    """One package unit: its bundles, default pick and what OLM v1 says about them."""
    nodes = [n for n in v1.get("nodes", []) if n.get("exists", True)]
    head = next((n for n in nodes if n.get("head")), None)
    unit = {
        "catalog": g.get("catalog", ""),
        "package": g.get("name", ""),
        "bundles": len(nodes),
        "bundles_refused": 0,
        "bundle_reasons": collections.Counter(),
        "pick": head["name"] if head else None,
        "pick_version": head.get("version") if head else None,
        "pick_refusals": [],
        "pick_rules": [],
    }
    for n in nodes:
        r = refusals(n)
        if r:
            unit["bundles_refused"] += 1
            unit["bundle_reasons"][in_pipeline_order(r)[0]] += 1
    found = (head.get("findings") or []) if head else []
    r = refusals(head) if head else []
    rules = {f.get("rule") for f in found}
    unit.update(
        pick_refusals=in_pipeline_order(r),
        pick_rules=sorted({f["rule"] + ":" + f.get("severity", "") for f in r}),
        pick_olm711_warning=any(f["rule"] == "OLM711" and f.get("severity") != "error" for f in r),
        pick_apply_time="OLM753" in rules,
        pick_not_default_head="OLM757" in rules,
        # With SingleOwnNamespaceInstallSupport on, a bundle without AllNamespaces is
        # installed only when spec.config.inline.watchNamespace is set (OLM750, info).
        pick_needs_watch_namespace=any(
            f.get("rule") == "OLM750" and f.get("severity") != "error" for f in found
        ),
    )
    return unit


def analyse(graphs):
    """The package units of the graphs, and how many graphs had no OLM v1 graph."""
    units, skipped = [], 0
    for g in graphs:
        v1 = v1_graph(g)
        if v1 is None:
            skipped += 1
        else:
            units.append(unit_of(g, v1))
    return units, skipped


def tally(units):
    """Totals over units, and the refusal reasons of default picks and of all bundles."""
    t = collections.OrderedDict(
        (k, 0)
        for k in (
            "package_units",
            "package_units_ready",
            "package_units_ready_with_watch_namespace",
            "no_default_pick",
            "distinct_packages",
            "distinct_ready_everywhere",
            "distinct_ready_somewhere",
            "bundles",
            "bundles_accepted",
            "ready_picks_with_apply_time_warnings",
            "picks_with_olm711_warning",
            "picks_not_default_channel_head",
        )
    )
    by_name = collections.defaultdict(list)
    pick_reasons, bundle_reasons = collections.Counter(), collections.Counter()
    for u in units:
        clean = u["pick"] is not None and not u["pick_refusals"]
        ready = clean and not u["pick_needs_watch_namespace"]
        t["package_units"] += 1
        t["package_units_ready"] += ready
        t["package_units_ready_with_watch_namespace"] += clean and not ready
        t["no_default_pick"] += u["pick"] is None
        t["bundles"] += u["bundles"]
        t["bundles_accepted"] += u["bundles"] - u["bundles_refused"]
        t["ready_picks_with_apply_time_warnings"] += ready and u["pick_apply_time"]
        t["picks_with_olm711_warning"] += u["pick_olm711_warning"]
        t["picks_not_default_channel_head"] += u["pick_not_default_head"]
        by_name[u["package"]].append(ready)
        if u["pick_refusals"]:
            pick_reasons[u["pick_refusals"][0]] += 1
        bundle_reasons.update(u["bundle_reasons"])
    t["distinct_packages"] = len(by_name)
    t["distinct_ready_everywhere"] = sum(all(v) for v in by_name.values())
    t["distinct_ready_somewhere"] = sum(any(v) for v in by_name.values())
    return t, pick_reasons, bundle_reasons


def resolved_pick(olmlint, repo, profile, unit, timeout):
    """What `olmlint resolve` selects for the unit's package in its catalog."""
    cmd = [olmlint, "resolve", unit["package"], "--target", "olmv1=" + profile]
    cmd += ["--catalog", unit["catalog"], "-f", "json"]
    p = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=timeout)
    r = json.loads(p.stdout or "null") or {}
    if r.get("bundle"):
        return r["bundle"]
    # Selected, then refused: the candidate resolution picked.
    sel = [c for c in r.get("candidates", []) if c.get("outcome") in ("selected", "refused")]
    return sel[0]["bundle"] if sel else None


def verify(olmlint, repo, profile, units, n, timeout):
    """Compare the graph's default pick with `olmlint resolve` on directory catalogs. An
    operator repository's bundle-directory tree is left out (resolve loads it whole per call)."""
    trees = {base_catalog(u["catalog"]) for u in units if " · " in u["catalog"]}
    pool = [
        u
        for u in units
        if " · " not in u["catalog"]
        and u["catalog"] not in trees
        and os.path.isdir(os.path.join(repo, u["catalog"]))
    ]
    if n <= 0 or not pool:
        return {"checked": 0, "mismatches": []}
    chosen = pool[:: max(1, len(pool) // n)][:n]
    mismatches = []
    for u in chosen:
        where = {"catalog": u["catalog"], "package": u["package"]}
        try:
            pick = resolved_pick(olmlint, repo, profile, u, timeout)
        except (subprocess.TimeoutExpired, ValueError) as e:
            mismatches.append(dict(where, error=str(e)))
            continue
        if pick != u["pick"]:
            mismatches.append(dict(where, graph=u["pick"], resolve=pick))
    return {"checked": len(chosen), "mismatches": mismatches}


def survey(olmlint, name, path, profile, a):
    """One repository under one profile: the record kept in the JSON, and its reasons."""
    graphs, code, seconds, err = run_graph(olmlint, name, path, profile, a.timeout, a.keep)
    kept, collapsed = collapse(graphs or [])
    units, skipped = analyse(kept)
    totals, picks, bundles = tally(units)
    by_cat = collections.defaultdict(list)
    for u in units:
        by_cat[base_catalog(u["catalog"])].append(u)
    refused = [
        {
            "catalog": u["catalog"],
            "package": u["package"],
            "bundle": u["pick"],
            "version": u["pick_version"],
            "rules": u["pick_rules"],
            "reasons": [r[1] for r in u["pick_refusals"]],
        }
        for u in units
        if u["pick_refusals"]
    ]
    record = {
        "exit": code,
        "stderr_tail": err if graphs is None else [],
        "seconds": round(seconds, 2),
        "graphs_without_olmv1_graph": skipped,
        "collapsed": collapsed,
        "catalogs": sorted({u["catalog"] for u in units}),
        "totals": totals,
        "by_base_catalog": {c: tally(us)[0] for c, us in sorted(by_cat.items())},
        "refused_picks": refused,
        "reasons": {"picks": ranked(picks), "bundles": ranked(bundles)},
        "verify": verify(olmlint, path, profile, units, a.verify_resolve, a.timeout),
    }
    if not a.quiet:
        print(
            "%-45s %-21s %6.1fs units %4d ready %4d bundles %6d accepted %6d%s"
            % (
                name[:45],
                profile,
                seconds,
                totals["package_units"],
                totals["package_units_ready"],
                totals["bundles"],
                totals["bundles_accepted"],
                "" if graphs is not None else "  NO OUTPUT (exit %s)" % code,
            ),
            file=sys.stderr,
        )
    return record, picks, bundles


def ranked(counter):
    return [{"rule": k[0], "reason": k[1], "count": v} for k, v in counter.most_common()]


def pct(a, b):
    return "%d / %d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "0 / 0"


def ready_cell(t):
    cell = pct(t.get("package_units_ready", 0), t.get("package_units", 0))
    extra = t.get("package_units_ready_with_watch_namespace", 0)
    return cell + (" +%d with watchNamespace" % extra if extra else "")


def summary_md(report):
    profiles = report["profiles"]
    out = [
        "# OLM v1 readiness survey\n",
        "olmlint: `%s`; profiles: %s.\n" % (report["olmlint_version"], ", ".join(profiles)),
        "A package is ready when the bundle that a ClusterExtension naming only the package",
        "installs (its default pick) has no refusing finding (%s).\n" % ", ".join(REFUSING),
        "## Summary (package units: a package in one catalog)\n",
        "| source | packages | "
        + " | ".join("ready, %s" % p for p in profiles)
        + " | bundles accepted (%s) |" % profiles[0],
        "|---|---:|" + "---:|" * len(profiles) + "---:|",
    ]
    for group, g in report["groups"].items():
        first = g[profiles[0]]
        out.append(
            "| %s | %d | %s | %s |"
            % (
                group,
                first.get("package_units", 0),
                " | ".join(ready_cell(g[p]) for p in profiles),
                pct(first.get("bundles_accepted", 0), first.get("bundles", 0)),
            )
        )
    out.append("")
    return out


def profile_md(report, p):
    out = [
        "## Profile %s\n" % p,
        "| repository | catalogs | package units | ready | distinct packages | ready everywhere"
        " | ready somewhere | bundles accepted | OLM753 on ready picks"
        " | pick not defaultChannel head (OLM757) | time (s) |",
        "|---|" + "---:|" * 10,
    ]
    for r in report["repositories"]:
        x = r["profiles"][p]
        t = x["totals"]
        cells = [
            r["name"],
            str(len(x["catalogs"])),
            str(t["package_units"]),
            ready_cell(t),
            str(t["distinct_packages"]),
            pct(t["distinct_ready_everywhere"], t["distinct_packages"]),
            pct(t["distinct_ready_somewhere"], t["distinct_packages"]),
            pct(t["bundles_accepted"], t["bundles"]),
            str(t["ready_picks_with_apply_time_warnings"]),
            str(t["picks_not_default_channel_head"]),
            "%.1f" % x["seconds"],
        ]
        out.append("| " + " | ".join(cells) + " |")
    tables = (("default picks", "picks", "package units"), ("bundles", "bundles", "bundles"))
    for what, key, unit in tables:
        out += [
            "\nTop refusal reasons of %s (the first OLM v1 meets):\n" % what,
            "| rule | message (upstream text, names folded) | %s |" % unit,
            "|---|---|---:|",
        ]
        for row in report["reasons"][p][key][:12]:
            out.append("| %s | `%s` | %d |" % (row["rule"], row["reason"], row["count"]))
    out.append("")
    return out


def catalogs_md(report):
    profiles, out = report["profiles"], []
    for r in report["repositories"]:
        cats = sorted({c for p in profiles for c in r["profiles"][p]["by_base_catalog"]})
        if len(cats) < 2:
            continue
        out += [
            "## %s, by catalog\n" % r["name"],
            "| catalog | packages | " + " | ".join("ready, %s" % p for p in profiles) + " |",
            "|---|---:|" + "---:|" * len(profiles),
        ]
        for c in cats:
            totals = [r["profiles"][p]["by_base_catalog"].get(c, {}) for p in profiles]
            n = max(t.get("package_units", 0) for t in totals)
            out.append("| %s | %d | %s |" % (c, n, " | ".join(ready_cell(t) for t in totals)))
        out.append("")
    checks = [
        (r["name"], p, r["profiles"][p]["verify"]) for r in report["repositories"] for p in profiles
    ]
    n = sum(v["checked"] for _, _, v in checks)
    if n:
        bad = [(name, p, m) for name, p, v in checks for m in v["mismatches"]]
        line = "Default picks cross-checked with `olmlint resolve`: %d, mismatches: %d."
        out.append(line % (n, len(bad)))
        out += ["- %s (%s): %s" % (name, p, json.dumps(m)) for name, p, m in bad[:20]]
        out.append("")
    return out


def markdown(report):
    out = summary_md(report)
    for p in report["profiles"]:
        out += profile_md(report, p)
    return "\n".join(out + catalogs_md(report)) + "\n"


def repositories(a, parser):
    """(name, path, group) of every repository to survey."""
    repos = []
    for spec in a.repos:
        name, _, path = spec.rpartition("=")
        name = name or os.path.basename(os.path.abspath(path))
        repos.append((name, path, name))
    for spec in a.each:
        group, _, d = spec.rpartition("=")
        group = group or os.path.basename(os.path.abspath(d))
        for sub in sorted(os.listdir(d)):
            if os.path.isdir(os.path.join(d, sub)) and not sub.startswith("."):
                repos.append((sub, os.path.join(d, sub), group))
    if not repos:
        parser.error("no repository given")
    return repos


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repos", nargs="*", metavar="[NAME=]REPO")
    ap.add_argument("--each", action="append", default=[], metavar="[GROUP=]DIR")
    ap.add_argument("--olmlint", required=True, help="the olmlint binary")
    ap.add_argument("--profile", action="append", dest="profiles", metavar="P")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--markdown", metavar="OUT")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--verify-resolve", type=int, default=0, metavar="N")
    ap.add_argument("--timeout", type=int, default=900, metavar="S")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    olmlint = os.path.abspath(a.olmlint)
    profiles = a.profiles or list(PROFILES)
    version = subprocess.run([olmlint, "--version"], capture_output=True, text=True)
    report = {
        "olmlint_version": version.stdout.strip(),
        "profiles": profiles,
        "refusing_rules": list(REFUSING),
        "repositories": [],
    }
    reasons = {p: (collections.Counter(), collections.Counter()) for p in profiles}
    groups = collections.OrderedDict()
    for name, path, group in repositories(a, ap):
        entry = {"name": name, "group": group, "profiles": {}}
        for p in profiles:
            record, picks, bundles = survey(olmlint, name, path, p, a)
            entry["profiles"][p] = record
            reasons[p][0].update(picks)
            reasons[p][1].update(bundles)
            g = groups.setdefault(group, {q: collections.Counter() for q in profiles})
            summed = ("package_units", "bundles")
            g[p].update({k: v for k, v in record["totals"].items() if k.startswith(summed)})
        report["repositories"].append(entry)
    report["groups"] = {g: {p: dict(c) for p, c in v.items()} for g, v in groups.items()}
    report["reasons"] = {
        p: {"picks": ranked(r[0]), "bundles": ranked(r[1])} for p, r in reasons.items()
    }
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
    md = markdown(report)
    if a.markdown:
        with open(a.markdown, "w", encoding="utf-8") as f:
            f.write(md)
    else:
        sys.stdout.write(md)


if __name__ == "__main__":
    main()
