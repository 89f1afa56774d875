#!/usr/bin/env python3
"""Check schemas/*.schema.json against tests/data/schema-vectors.json.

    python3 scripts/check-schemas.py [-v] [--fast]

1. Every schema is valid against its metaschema (draft 2020-12), uses only portable regexes, has a
   description on every declared property, and every `$ref` resolves in a registry where each
   schema is registered under its `$id` (as the Rust `jsonschema` crate is set up).
2. Every vector's verdict matches. A vector is
       {"id", "schema", "value" | "generate", "valid", ["schemaValid"], ["note"]}
   - `schema` names schemas/<schema>.schema.json;
   - `valid` is olmlint's decode-level verdict; `schemaValid`, when present, is the schema's expected
     verdict where the two differ on purpose (limits a schema cannot express, olmlint gaps);
   - `generate` replaces `value` for huge inputs:
       {"pad": {"base": <object>, "field": F, "bytes": N}}  base with F set to "x"*k so that the
           compact sorted-key JSON (what OLM measures) is exactly N bytes;
       {"nest": {"leaf": <constraint>, "op": "all", "levels": N}}  N nested {op: {constraints: [..]}}.
Needs jsonschema >= 4.18 (referencing). Exit status 1 on any failure.
"""
import json
import re
import sys
import threading
from pathlib import Path

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
VECTORS = ROOT / "tests" / "data" / "schema-vectors.json"
# Regex features with different meanings (or no support) across ECMA-262, Python `re` and Rust.
NON_PORTABLE = re.compile(r"\(\?[a-zA-Z<]|\\[AZzhHpPQE]|\(\?P")


def canonical(v):
    """The bytes OLM measures: compact JSON, sorted keys, no HTML escaping."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def materialize(vec):
    if "value" in vec:
        return vec["value"]
    gen = vec["generate"]
    if "pad" in gen:
        g = gen["pad"]
        base = dict(g["base"], **{g["field"]: ""})
        value = dict(base, **{g["field"]: "x" * (g["bytes"] - len(canonical(base)))})
        assert len(canonical(value)) == g["bytes"], vec["id"]
        return value
    if "nest" in gen:
        g = gen["nest"]
        value = g["leaf"]
        for _ in range(g["levels"]):
            value = {g["op"]: {"constraints": [value]}}
        return value
    raise ValueError(f"{vec['id']}: unknown generator {gen}")


# Keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema.
MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "dependentSchemas")
LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
ONE_KEYWORDS = ("not", "if", "then", "else", "items", "contains", "additionalProperties",
                "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def walk(schema, path=""):
    """Yield (json-pointer, subschema) for the schema and every subschema in it."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for kw in MAP_KEYWORDS:
        for k, sub in (schema.get(kw) or {}).items():
            yield from walk(sub, f"{path}/{kw}/{k}")
    for kw in LIST_KEYWORDS:
        for i, sub in enumerate(schema.get(kw) or []):
            yield from walk(sub, f"{path}/{kw}/{i}")
    for kw in ONE_KEYWORDS:
        if kw in schema:
            yield from walk(schema[kw], f"{path}/{kw}")


def lint(name, schema, registry, style=True):
    problems = []
    jsonschema.Draft202012Validator.check_schema(schema)
    if not style:
        return problems
    if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        problems.append("$schema is not draft 2020-12")
    if not schema.get("$id", "").endswith(f"/{name}"):
        problems.append(f"$id {schema.get('$id')!r} does not end with /{name}")
    for key in ("title", "description"):
        if key not in schema:
            problems.append(f"missing top-level {key}")
    resolver = registry.resolver(base_uri=schema["$id"])
    for path, sub in walk(schema):
        if "$ref" in sub:
            try:
                resolver.lookup(sub["$ref"])
            except Exception as e:  # noqa: BLE001 - report any resolution failure
                problems.append(f"{path}: $ref {sub['$ref']!r} does not resolve: {e}")
        for pat in [sub["pattern"]] if "pattern" in sub else list(sub.get("patternProperties") or {}):
            re.compile(pat)
            if NON_PORTABLE.search(pat):
                problems.append(f"{path}: non-portable regex {pat!r}")
        # A key matched by both `properties` and `patternProperties` is validated twice; for the
        # recursive constraint that doubles the work per nesting level (exponential in depth).
        for pat in sub.get("patternProperties") or {}:
            for key in sub.get("properties") or {}:
                if re.search(pat, key):
                    problems.append(f"{path}: patternProperties {pat!r} also matches declared property {key!r}")
        # House style: a description on every declared property (not inside `if` tests; boolean
        # schemas and bare `$ref`s to a described definition are fine).
        if "/if" in path:
            continue
        for kw in ("properties", "patternProperties"):
            for key, prop in (sub.get(kw) or {}).items():
                if isinstance(prop, bool) or "description" in prop:
                    continue
                if set(prop) == {"$ref"} and "description" in resolver.lookup(prop["$ref"]).contents:
                    continue
                problems.append(f"{path}/{kw}/{key}: no description")
    return problems


def main():
    verbose = "-v" in sys.argv
    # --fast skips the 3332/3333-level vectors (the Python validator is quadratic in depth: ~1 min).
    fast = "--fast" in sys.argv
    failures = []
    schemas = {}
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        schemas[path.name] = json.loads(path.read_text())
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012)) for s in schemas.values()
    )
    for name, schema in schemas.items():
        # olmlint-config.schema.json predates these checks: metaschema only.
        for p in lint(name, schema, registry, style=name != "olmlint-config.schema.json"):
            failures.append(f"{name}: {p}")

    vectors = json.loads(VECTORS.read_text())
    ids = [v["id"] for v in vectors]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        failures.append(f"duplicate vector ids: {sorted(dupes)}")
    validators = {}
    counts = {True: 0, False: 0}
    skipped = []
    for vec in vectors:
        fname = f"{vec['schema']}.schema.json"
        if fname not in schemas:
            failures.append(f"{vec['id']}: unknown schema {vec['schema']!r}")
            continue
        if ("value" in vec) == ("generate" in vec):
            failures.append(f"{vec['id']}: needs exactly one of value/generate")
            continue
        if fname not in validators:
            validators[fname] = jsonschema.Draft202012Validator(schemas[fname], registry=registry)
        if fast and vec.get("generate", {}).get("nest", {}).get("levels", 0) > 100:
            skipped.append(vec["id"])
            continue
        want = vec.get("schemaValid", vec["valid"])
        value = materialize(vec)
        try:
            errors = list(validators[fname].iter_errors(value))
        except Exception as e:  # noqa: BLE001 - e.g. an unresolvable $ref, already linted
            failures.append(f"{vec['id']} ({vec['schema']}): validation raised {type(e).__name__}: {e}")
            continue
        got = not errors
        counts[got] += 1
        if got != want:
            why = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:160]}" for e in errors[:3])
            failures.append(f"{vec['id']} ({vec['schema']}): expected {'valid' if want else 'invalid'}, "
                            f"schema says {'valid' if got else 'invalid'}" + (f" [{why}]" if why else "")
                            + (f" -- {vec.get('note')}" if vec.get("note") else ""))
        elif verbose:
            print(f"ok  {vec['id']:<14} {'valid' if got else 'invalid':<8} {vec.get('note', '')[:90]}")

    differ = [v["id"] for v in vectors if "schemaValid" in v]
    print(f"{len(schemas)} schemas, {len(vectors)} vectors ({counts[True]} valid, {counts[False]} invalid); "
          f"schema verdict deliberately differs from olmlint's for: {', '.join(differ) or 'none'}")
    if skipped:
        print(f"--fast: skipped {', '.join(skipped)}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    # C42/C43 nest 10000 JSON containers: give the recursive validator room.
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    result = []
    t = threading.Thread(target=lambda: result.append(main()))
    t.start()
    t.join()
    sys.exit(result[0] if result else 2)
