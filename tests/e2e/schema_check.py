#!/usr/bin/env python3
"""Checks JSON files against a JSON schema's types, enums, consts and required names, recursively
(following "$ref": "#/$defs/NAME"),
without the jsonschema module (the e2e tests run where it is missing).

    python3 tests/e2e/schema_check.py SCHEMA.json FILE.json...

Prints "ok: ..." and exits 0, or names the first file and path that differ and exits 1."""
import json
import sys

TYPES = {"object": dict, "array": list, "integer": int, "number": (int, float), "string": str, "boolean": bool,
         "null": type(None)}


# The schema being checked against, for "$ref": "#/$defs/NAME" (the only references used).
root = {}


def check(value, node, where):
    if "$ref" in node:
        prefix = "#/$defs/"
        assert node["$ref"].startswith(prefix), f"{where}: unsupported $ref {node['$ref']}"
        node = root["$defs"][node["$ref"][len(prefix):]]
    if "const" in node:
        assert value == node["const"], f"{where}: {value!r} != {node['const']!r}"
    want = node.get("type")
    if want is not None:
        allowed = tuple(t for w in (want if isinstance(want, list) else [want])
                        for t in (TYPES[w] if isinstance(TYPES[w], tuple) else (TYPES[w],)))
        # bool is an int in Python: a boolean passes only where the schema allows one
        assert isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed), \
            f"{where}: {value!r} is not {want}"
    if "enum" in node:
        assert value in node["enum"], f"{where}: {value!r} not in {node['enum']}"
    for key in node.get("required", []):
        assert key in value, f"{where}: missing {key}"
    for key, sub in node.get("properties", {}).items():
        if isinstance(value, dict) and key in value:
            check(value[key], sub, f"{where}/{key}")
    if "items" in node and isinstance(value, list):
        for i, item in enumerate(value):
            check(item, node["items"], f"{where}/{i}")


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: schema_check.py SCHEMA.json FILE.json...")
    schema = json.load(open(argv[1]))
    root.update(schema)
    try:
        for path in argv[2:]:
            check(json.load(open(path)), schema, path)
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    print(f"ok: {len(argv) - 2} file(s) match {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
