#!/usr/bin/env python3
"""Generators for olmlint denial-of-service reproducers ("superlinear paths on small inputs").

Usage:  python3 gen.py CLASS N OUTDIR [--variant V] [--k K]

Every command writes OUTDIR/catalog.yaml (or catalog.json) - a file-based catalog - replacing
OUTDIR; the classes olm111 dirs, suppress, mapping and members write a directory tree. Run the linter with e.g.
    target/release/olmlint lint --no-config -f json OUTDIR
(class `chain` variants gvk/absent need --closed-world; bench/hostile.sh knows the flags).

Classes and variants (default variant first):
  chain     N packages p0..p{N-1}; p_i's bundle requires package p_{i+1}; the last one needs
            something unsatisfiable.
              version : requires package `pend` >=2.0.0; pend exists only at 1.0.0
              two     : like version, but every p_i has two bundles (1.0.0 and 2.0.0, one
                        replaces chain), so every link has two candidates
              gvk     : requires gvk g/v1/Missing nobody provides (lint with --closed-world)
              absent  : requires package `nowhere` (lint with --closed-world)
  keys      one document with N extra top-level keys
              pkg     : an olm.package document with keys k0..k{N-1} (YAML)
              bundle  : an olm.bundle document with keys k0..k{N-1} (YAML)
              json    : olm.bundle document with N keys, JSON
              case    : olm.bundle YAML with N keys differing only by case-insensitive
                        similarity (Name0, nAme0, ...) and near-miss names of known fields
              dup     : olm.bundle YAML where every key is `k` (N duplicates)
  providers N bundles providing gvk g/v1/K, plus N requirers (olm.gvk.required g/v1/K)
              pkgs    : providers in N packages (one bundle each), requirers in N packages
              one     : providers are N bundles of one package (one replaces chain)
              self    : like pkgs, and every provider also requires g/v1/K (its own API)
              nosreq  : providers only, each requiring g/v1/K (its own API); no requirers
  replaces  package foo, N bundles in one replaces chain, all providing g/v1/K; the greedy
            witness is defeated so every check runs the SAT solver.
              bar     : every foo bundle requires package bar (bar.v2 head, bar.v1); bar.v2
                        requires g/v1/K (=> closure = all foo) and package baz, whose only
                        bundle provides g/v1/K too (conflicts with the start): greedy fails on
                        bar.v2, the solver must backtrack to bar.v1
              any     : every foo bundle has olm.constraint any:[package bar2, gvk K] where
                        bar2's only bundle needs baz (provider of K) - same effect via any
              not     : every foo bundle has olm.constraint all:[gvk K, not:{package zzz}] (candidates:
                        every foo entry, a tautology incl. itself); greedy succeeds but explore
                        walks every candidate list of every reached entry
  skiprange one package, N bundles in one channel; entry 0 defines an anchor &r of a skipRange
            with K `||` alternatives (--k, default 2000); entries 1..N-1 use `skipRange: *r`
              alias   : as described
              plain   : same but the text repeated literally (no aliases) - for comparison
              half    : like alias but only the first N/2 entries; lint it with
                        `--baseline DIR_OF_alias_N` (OLM70x removed-bundle check)
  olm111    OLM111 (upgrade paths to the head) over skipRange '<version': N entries in one replaces
            chain, each entry's skipRange covering every older version
              lt      : one FBC channel (YAML)
              dirs    : N registry+v1 bundle directories of one operator (lint OUTDIR/operators)
  suggest   "did you mean" suggestions: N long names missing, N long names known (same length)
              skips   : one channel of N entries, each skipping a missing bundle (OLM110 hints)
              package : N packages, and N channels of N other packages that do not exist
  suppress  N findings (OLM103: a channel listing one entry N+1 times, one file) and a
            `.olmlint.yaml` with N/3 `suppress:` entries, one per third finding (lint with
            --config OUTDIR/.olmlint.yaml)
              pointer : one file glob, one entry per pointer
              globs   : a different glob per entry, every one matching the catalog file
  mapping   a template repository: operators/op/ci.yaml maps one basic template to catalog v4.18
            N times (duplicate fbc.catalog_mapping items); the template lists N/5 bundles,
            rendered in catalogs/v4.18/op/catalog.yaml
              dup     : N identical items
              names   : one item whose catalog_names lists v4.18 N times
  members   channel memberships: N registry+v1 bundle directories of one operator, each listing
            K channels in channels.v1 (--k)
              dirs    : replaces-mode
              semver  : semver-mode
  snapshot  PR mode (`--changed-since base`, run in OUTDIR): a git repository whose commit
            tagged `base` holds the catalog as it was; the work tree changes one package
              many    : N packages, one file each; the change edits package p0
              blob    : one catalog file of N x 64 KiB (repetitive, so git stores it small)
                        at `base`, and `.olmlint.yaml` setting limits.max-file-size to 4 MiB:
                        the snapshot reads it at 1x and refuses it at 10x (bounded)
  fixes     N fixable findings
              olm212  : olm.constraint values with key `GVK` (OLM212 key case), 100 per bundle
              olm209  : olm.package.required values with `version:` instead of versionRange
              json1   : olm212 in a JSON catalog written on ONE line (minified)
"""
import argparse
import json
import os
import shutil


def pkg(name, ch="stable"):
    return f"---\nschema: olm.package\nname: {name}\ndefaultChannel: {ch}\n"


def channel(pkgname, entries, ch="stable"):
    out = [f"---\nschema: olm.channel\npackage: {pkgname}\nname: {ch}\nentries:\n"]
    for e in entries:
        if isinstance(e, str):
            e = {"name": e}
        out.append(f"  - name: {e['name']}\n")
        for k in ("replaces", "skipRange"):
            if k in e:
                out.append(f"    {k}: {e[k]}\n")
    return "".join(out)


def bundle(pkgname, name, version, props=()):
    s = [f"---\nschema: olm.bundle\npackage: {pkgname}\nname: {name}\n"
         f"image: quay.io/x/{pkgname}:v{version}\nproperties:\n"
         f"  - type: olm.package\n    value: {{packageName: {pkgname}, version: {version}}}\n"]
    for p in props:
        s.append(p)
    return "".join(s)


def req_pkg(p, rng):
    return f"  - type: olm.package.required\n    value: {{packageName: {p}, versionRange: '{rng}'}}\n"


def gvk(kind="K", group="g", version="v1"):
    return f"  - type: olm.gvk\n    value: {{group: {group}, kind: {kind}, version: {version}}}\n"


def req_gvk(kind="K", group="g", version="v1"):
    return f"  - type: olm.gvk.required\n    value: {{group: {group}, kind: {kind}, version: {version}}}\n"


def constraint(value_json):
    return f"  - type: olm.constraint\n    value: {json.dumps(value_json)}\n"


def simple_package(name, version="1.0.0", props=()):
    b = f"{name}.v{version}"
    return pkg(name) + channel(name, [b]) + bundle(name, b, version, props)


# ---------------------------------------------------------------------------------------------

def gen_chain(n, variant, k):
    out = []
    link = ">=1.0.0"
    for i in range(n):
        if i + 1 < n:
            props = [req_pkg(f"p{i+1}", link)]
        elif variant in ("version", "two"):
            props = [req_pkg("pend", ">=2.0.0")]
        elif variant == "gvk":
            props = [req_gvk("Missing")]
        elif variant == "absent":
            props = [req_pkg("nowhere", ">=1.0.0")]
        else:
            raise SystemExit(f"unknown variant {variant}")
        if variant == "two":
            names = [f"p{i}.v1.0.0", f"p{i}.v2.0.0"]
            out.append(pkg(f"p{i}") + channel(f"p{i}", [names[0], {"name": names[1], "replaces": names[0]}])
                       + bundle(f"p{i}", names[0], "1.0.0", props) + bundle(f"p{i}", names[1], "2.0.0", props))
        else:
            out.append(simple_package(f"p{i}", "1.0.0", props))
    if variant in ("version", "two"):
        out.append(simple_package("pend", "1.0.0"))
    return "".join(out)


def gen_keys(n, variant, k):
    if variant == "json":
        d = {"schema": "olm.bundle", "package": "foo", "name": "foo.v1.0.0",
             "image": "quay.io/x/foo:v1",
             "properties": [{"type": "olm.package", "value": {"packageName": "foo", "version": "1.0.0"}}]}
        for i in range(n):
            d[f"k{i}"] = i
        pk = {"schema": "olm.package", "name": "foo", "defaultChannel": "stable"}
        chn = {"schema": "olm.channel", "package": "foo", "name": "stable", "entries": [{"name": "foo.v1.0.0"}]}
        return ("json", json.dumps(pk) + "\n" + json.dumps(chn) + "\n" + json.dumps(d, indent=1) + "\n")
    if variant == "pkg":
        s = [pkg("foo")]
        s += [f"k{i}: {i}\n" for i in range(n)]
        s.append(channel("foo", ["foo.v1.0.0"]) + bundle("foo", "foo.v1.0.0", "1.0.0"))
        return "".join(s)
    if variant in ("bundle", "case", "dup"):
        s = [pkg("foo") + channel("foo", ["foo.v1.0.0"])]
        b = bundle("foo", "foo.v1.0.0", "1.0.0")
        extra = []
        for i in range(n):
            if variant == "bundle":
                key = f"k{i}"
            elif variant == "dup":
                key = "k"
            else:  # case: keys that fold to known-looking names
                base = ["Name", "nAme", "NAME", "namee", "Packag", "Image", "propertie", "relatedImage"][i % 8]
                key = f"{base}{i}"
            extra.append(f"{key}: {i}\n")
        # extra keys before `properties:` would break nothing either; put them at the end
        s.append(b + "".join(extra))
        return "".join(s)
    raise SystemExit(f"unknown variant {variant}")


def gen_providers(n, variant, k):
    out = []
    if variant in ("pkgs", "self", "nosreq"):
        for i in range(n):
            props = [gvk("K")]
            if variant in ("self", "nosreq"):
                props.append(req_gvk("K"))
            out.append(simple_package(f"prov{i}", "1.0.0", props))
    elif variant == "one":
        names = [f"prov.v{i}.0.0" for i in range(n)]
        entries = [{"name": names[0]}] + [{"name": names[i], "replaces": names[i - 1]} for i in range(1, n)]
        out.append(pkg("prov") + channel("prov", entries))
        for i in range(n):
            out.append(bundle("prov", names[i], f"{i}.0.0", [gvk("K")]))
    else:
        raise SystemExit(f"unknown variant {variant}")
    if variant != "nosreq":
        for i in range(n):
            out.append(simple_package(f"req{i}", "1.0.0", [req_gvk("K")]))
    return "".join(out)


def gen_replaces(n, variant, k):
    names = [f"foo.v{i}.0.0" for i in range(n)]
    entries = [{"name": names[0]}] + [{"name": names[i], "replaces": names[i - 1]} for i in range(1, n)]
    out = [pkg("foo") + channel("foo", entries)]
    for i in range(n):
        props = [gvk("K")]
        if variant == "bar":
            props.append(req_pkg("bar", ">=1.0.0"))
        elif variant == "any":
            props.append(constraint({"any": {"constraints": [
                                         {"package": {"packageName": "bar2", "versionRange": ">=1.0.0"}},
                                         {"gvk": {"group": "g", "version": "v1", "kind": "K"}}]}}))
            props.append(req_pkg("bar", ">=1.0.0"))
        elif variant == "not":
            props.append(constraint({"all": {"constraints": [
                {"gvk": {"group": "g", "version": "v1", "kind": "K"}},
                {"not": {"constraints": [
                    {"package": {"packageName": "zzz", "versionRange": ">=0.0.0"}}]}}]}}))
        else:
            raise SystemExit(f"unknown variant {variant}")
        out.append(bundle("foo", names[i], f"{i}.0.0", props))
    if variant in ("bar", "any"):
        # bar: head bar.v2.0.0 (preferred) replaces bar.v1.0.0
        out.append(pkg("bar") + channel("bar", [{"name": "bar.v1.0.0"},
                                               {"name": "bar.v2.0.0", "replaces": "bar.v1.0.0"}]))
        out.append(bundle("bar", "bar.v1.0.0", "1.0.0"))
        out.append(bundle("bar", "bar.v2.0.0", "2.0.0", [req_gvk("K"), req_pkg("baz", ">=1.0.0")]))
        out.append(simple_package("baz", "1.0.0", [gvk("K")]))
    if variant == "any":
        out.append(simple_package("bar2", "1.0.0", [req_pkg("baz", ">=1.0.0")]))
    if variant == "not":
        out.append(simple_package("zzz", "1.0.0"))
    return "".join(out)


def long_range(k):
    # k alternatives, disjoint, e.g. ">=0.0.1 <0.0.2 || >=0.1.1 <0.1.2 || ..."
    return " || ".join(f">={i // 1000}.{i % 1000}.1 <{i // 1000}.{i % 1000}.2" for i in range(k))


def gen_skiprange(n, variant, k):
    r = long_range(k)
    if variant == "half":
        n, variant = (n + 1) // 2, "alias"
    names = [f"foo.v{1000 + i}.0.0" for i in range(n)]
    lines = [pkg("foo"), "---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n"]
    for i in range(n):
        lines.append(f"  - name: {names[i]}\n")
        if i > 0:
            lines.append(f"    replaces: {names[i - 1]}\n")
        if variant == "alias":
            lines.append(f"    skipRange: &r '{r}'\n" if i == 0 else "    skipRange: *r\n")
        elif variant == "plain":
            lines.append(f"    skipRange: '{r}'\n")
        else:
            raise SystemExit(f"unknown variant {variant}")
    for i in range(n):
        lines.append(bundle("foo", names[i], f"{1000 + i}.0.0"))
    return "".join(lines)


def gen_fixes(n, variant, k):
    per = 100
    nb = max(1, (n + per - 1) // per)
    if variant == "json1":
        docs = [{"schema": "olm.package", "name": "foo", "defaultChannel": "stable"},
                {"schema": "olm.channel", "package": "foo", "name": "stable",
                 "entries": [{"name": f"foo.v{b}.0.0", **({"replaces": f"foo.v{b-1}.0.0"} if b else {})}
                             for b in range(nb)]}]
        left = n
        for b in range(nb):
            props = [{"type": "olm.package", "value": {"packageName": "foo", "version": f"{b}.0.0"}}]
            for j in range(min(per, left)):
                props.append({"type": "olm.constraint",
                              "value": {"GVK": {"group": "g", "version": "v1", "kind": f"K{j}"}}})
            left -= per
            docs.append({"schema": "olm.bundle", "package": "foo", "name": f"foo.v{b}.0.0",
                         "image": f"quay.io/x/foo:v{b}", "properties": props})
        return ("json", "".join(json.dumps(d, separators=(",", ":")) for d in docs) + "\n")
    names = [f"foo.v{b}.0.0" for b in range(nb)]
    entries = [{"name": names[0]}] + [{"name": names[b], "replaces": names[b - 1]} for b in range(1, nb)]
    out = [pkg("foo") + channel("foo", entries)]
    left = n
    for b in range(nb):
        props = []
        for j in range(min(per, left)):
            if variant == "olm212":
                props.append(f"  - type: olm.constraint\n    value: {{GVK: {{group: g, version: v1, kind: K{j}}}}}\n")
            elif variant == "olm209":
                props.append(f"  - type: olm.package.required\n    value: {{packageName: dep{j}, version: '>=1.0.0'}}\n")
            else:
                raise SystemExit(f"unknown variant {variant}")
        left -= per
        out.append(bundle("foo", names[b], f"{b}.0.0", props))
    return "".join(out)


def csv_doc(name, version, replaces=None, skip_range=None):
    s = ["apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n"
         f"  name: {name}\n"]
    if skip_range:
        s.append(f"  annotations:\n    olm.skipRange: '{skip_range}'\n")
    s.append(f"spec:\n  displayName: x\n  version: {version}\n")
    if replaces:
        s.append(f"  replaces: {replaces}\n")
    s.append("  installModes:\n  - type: AllNamespaces\n    supported: true\n")
    return "".join(s)


def annotations_doc(package, channels, default):
    return ("annotations:\n"
            "  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n"
            "  operators.operatorframework.io.bundle.manifests.v1: manifests/\n"
            "  operators.operatorframework.io.bundle.metadata.v1: metadata/\n"
            f"  operators.operatorframework.io.bundle.package.v1: {package}\n"
            f"  operators.operatorframework.io.bundle.channels.v1: {channels}\n"
            f"  operators.operatorframework.io.bundle.channel.default.v1: {default}\n")


def bundle_dirs(op, n, mode, channels="stable", skip_range=False):
    files = {f"operators/{op}/ci.yaml": f"updateGraph: {mode}\nreviewers:\n  - someone\n"}
    for i in range(n):
        v = f"1.{i}.0"
        name = f"{op}.v{v}"
        replaces = f"{op}.v1.{i - 1}.0" if i and mode == "replaces-mode" else None
        files[f"operators/{op}/{v}/manifests/{op}.clusterserviceversion.yaml"] = csv_doc(
            name, v, replaces, f"<{v}" if skip_range else None)
        files[f"operators/{op}/{v}/metadata/annotations.yaml"] = annotations_doc(
            op, channels, channels.split(",")[0])
    return files


def gen_olm111(n, variant, k):
    if variant == "dirs":
        return bundle_dirs("foo", n, "replaces-mode", skip_range=True)
    if variant != "lt":
        raise SystemExit(f"unknown variant {variant}")
    names = [f"foo.v1.{i}.0" for i in range(n)]
    entries = [{"name": names[0]}] + [
        {"name": names[i], "replaces": names[i - 1], "skipRange": f"'<1.{i}.0'"} for i in range(1, n)]
    out = [pkg("foo") + channel("foo", entries)]
    out += [bundle("foo", names[i], f"1.{i}.0") for i in range(n)]
    return "".join(out)


def long_name(prefix, i, length=160):
    tail = f"-{i:08d}"
    return prefix + "x" * (length - len(prefix) - len(tail)) + tail


def gen_suggest(n, variant, k):
    if variant == "skips":
        names = [long_name("foo.v", i) for i in range(n)]
        out = [pkg("foo"), "---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n"]
        for i in range(n):
            out.append(f"  - name: {names[i]}\n")
            if i:
                out.append(f"    replaces: {names[i - 1]}\n")
            out.append(f"    skips: [{long_name('gone.v', i)}]\n")
        out += [bundle("foo", names[i], f"1.{i}.0") for i in range(n)]
        return "".join(out)
    if variant == "package":
        out = []
        for i in range(n):
            p = long_name("pkg", i, 100)
            out.append(simple_package(p))
            out.append(f"---\nschema: olm.channel\npackage: {long_name('nop', i, 100)}\nname: stable\n"
                       f"entries:\n  - name: x.v1.0.0\n")
        return "".join(out)
    raise SystemExit(f"unknown variant {variant}")


def gen_suppress(n, variant, k):
    cat = [pkg("foo") + "---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n"]
    cat += ["  - name: foo.v1.0.0\n"] * (n + 1)
    cat.append(bundle("foo", "foo.v1.0.0", "1.0.0"))
    cfg = ["suppress:\n"]
    for i in range(1, n + 1, 3):
        if variant == "pointer":
            glob = "catalog.yaml"
        elif variant == "globs":
            glob = f"{{catalog,c{i}}}.yaml"
        else:
            raise SystemExit(f"unknown variant {variant}")
        cfg.append(f"  - {{rule: OLM103, file: '{glob}', pointer: /entries/{i}/name, reason: r}}\n")
    return {"catalog.yaml": "".join(cat), ".olmlint.yaml": "".join(cfg)}


def gen_mapping(n, variant, k):
    bundles = max(20, n // 5)
    names = [f"op.v1.{i}.0" for i in range(bundles)]
    entries = [{"name": names[0]}] + [{"name": names[i], "replaces": names[i - 1]} for i in range(1, bundles)]
    image = "quay.io/x/op-bundle:v1.{}.0"
    tpl = ["schema: olm.template.basic\nentries:\n",
           "  - schema: olm.package\n    name: op\n    defaultChannel: stable\n",
           "  - schema: olm.channel\n    package: op\n    name: stable\n    entries:\n"]
    for e in entries:
        tpl.append(f"      - name: {e['name']}\n")
        if "replaces" in e:
            tpl.append(f"        replaces: {e['replaces']}\n")
    tpl += [f"  - schema: olm.bundle\n    image: {image.format(i)}\n" for i in range(bundles)]
    rendered = [pkg("op") + channel("op", entries)]
    for i in range(bundles):
        rendered.append(f"---\nschema: olm.bundle\npackage: op\nname: {names[i]}\nimage: {image.format(i)}\n"
                        f"properties:\n  - type: olm.package\n    value: {{packageName: op, version: 1.{i}.0}}\n")
    item = "  - template_name: basic.yaml\n    type: olm.template.basic\n    catalog_names: [{}]\n"
    if variant == "dup":
        items = [item.format("v4.18")] * n
    elif variant == "names":
        items = [item.format(", ".join(["v4.18"] * n))]
    else:
        raise SystemExit(f"unknown variant {variant}")
    ci = "fbc:\n  enabled: true\n  catalog_mapping:\n" + "".join(items)
    return {"operators/op/ci.yaml": ci,
            "operators/op/catalog-templates/basic.yaml": "".join(tpl),
            "catalogs/v4.18/op/catalog.yaml": "".join(rendered)}


def gen_members(n, variant, k):
    mode = {"dirs": "replaces-mode", "semver": "semver-mode"}.get(variant)
    if mode is None:
        raise SystemExit(f"unknown variant {variant}")
    return bundle_dirs("op", n, mode, channels=",".join(f"c{j}" for j in range(k)))


def gen_snapshot(n, variant, k):
    """Files at `base` and, under the key AFTER, the files the work tree changes afterwards."""
    if variant == "many":
        files = {f"catalog/p{i}/catalog.yaml": simple_package(f"p{i}") for i in range(n)}
        after = {"catalog/p0/catalog.yaml": simple_package("p0", version="1.0.1")}
    elif variant == "blob":
        filler = "# " + "x" * 1021 + "\n"
        files = {
            ".olmlint.yaml": "limits:\n  max-file-size: 4194304\n",
            "catalog/big/catalog.yaml": simple_package("big") + filler * (64 * n),
        }
        after = {"catalog/big/catalog.yaml": simple_package("big", version="1.0.1")}
    else:
        raise SystemExit(f"unknown variant {variant}")
    files[AFTER] = after
    return files


AFTER = "\0after"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


def commit_base(outdir, after):
    """Commit OUTDIR as tag `base`, then write the work tree's changes."""
    import subprocess
    run = lambda *a: subprocess.run(GIT + list(a), cwd=outdir, check=True, stdout=subprocess.DEVNULL)
    run("init", "-q")
    run("add", "-A")
    run("commit", "-q", "-m", "base")
    run("tag", "base")
    for rel, text in after.items():
        with open(os.path.join(outdir, rel), "w") as f:
            f.write(text)


CLASSES = {
    "chain": (gen_chain, "version"),
    "keys": (gen_keys, "pkg"),
    "providers": (gen_providers, "pkgs"),
    "replaces": (gen_replaces, "bar"),
    "skiprange": (gen_skiprange, "alias"),
    "fixes": (gen_fixes, "olm212"),
    "olm111": (gen_olm111, "lt"),
    "suggest": (gen_suggest, "skips"),
    "suppress": (gen_suppress, "pointer"),
    "mapping": (gen_mapping, "dup"),
    "members": (gen_members, "dirs"),
    "snapshot": (gen_snapshot, "many"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cls", choices=sorted(CLASSES))
    ap.add_argument("n", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--variant")
    ap.add_argument("--k", type=int, default=2000, help="skiprange: alternatives in the range")
    a = ap.parse_args()
    fn, default = CLASSES[a.cls]
    res = fn(a.n, a.variant or default, a.k)
    if isinstance(res, dict):
        files = res
    else:
        ext, text = res if isinstance(res, tuple) else ("yaml", res)
        files = {f"catalog.{ext}": text}
    after = files.pop(AFTER, None)
    if os.path.isdir(a.outdir):
        shutil.rmtree(a.outdir)
    os.makedirs(a.outdir)
    for rel, text in files.items():
        path = os.path.join(a.outdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    if after is not None:
        commit_base(a.outdir, after)


if __name__ == "__main__":
    main()
