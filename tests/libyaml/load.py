#!/usr/bin/env python3
"""libyaml's reading of YAML files, for tests/it/libyaml.rs (issue #26).

Reads file paths (one per line) on stdin; prints one JSON line per file:
  {"ok": true, "docs": [...]}   every non-null document, plain scalars left as strings
  {"ok": false, "error": "..."} libyaml's parser rejected the stream

The parser is libyaml itself (PyYAML's CParser). Scalars are not resolved (no implicit
resolvers but merge keys), so the comparison is about syntax, structure and string content;
olmlint's YAML 1.1 resolution is checked against the strings by the Rust side. Exits 3 when
PyYAML lacks libyaml.
"""
import json
import re
import sys

import yaml
import yaml.cyaml

if not yaml.__with_libyaml__:
    print("PyYAML is installed without libyaml (CParser)", file=sys.stderr)
    sys.exit(3)


class Resolver(yaml.resolver.BaseResolver):
    pass


Resolver.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


class Constructor(yaml.constructor.SafeConstructor):
    pass


# Keep explicitly tagged scalars' text: olmlint, like go-yaml into `any`, resolves them itself.
for tag in ("timestamp", "binary", "int", "float", "bool", "null"):
    Constructor.add_constructor(
        "tag:yaml.org,2002:" + tag, lambda self, node: {"$tagged": node.tag, "text": node.value}
    )


class Loader(yaml.cyaml.CParser, Constructor, Resolver):
    def __init__(self, stream):
        yaml.cyaml.CParser.__init__(self, stream)
        Constructor.__init__(self)
        Resolver.__init__(self)


def main():
    for path in sys.stdin.read().splitlines():
        with open(path, "rb") as f:
            data = f.read()
        try:
            docs = [d for d in yaml.load_all(data, Loader=Loader) if d is not None]
            out = {"ok": True, "docs": docs}
        except yaml.constructor.ConstructorError as e:
            # Syntax accepted; a value the constructor refuses (unhashable key, …).
            out = {"ok": True, "docs": None, "note": str(e).splitlines()[0]}
        except yaml.YAMLError as e:
            out = {"ok": False, "error": str(e).replace("\n", " ")}
        print(json.dumps(out, default=str, ensure_ascii=False))


main()
