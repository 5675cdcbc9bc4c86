#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/fuzz_*.c) from the test suite.

Usage: seeds.py OUT_DIR. Creates OUT_DIR/<target>/ for each target, one file per seed:

  yaml      the repository's YAML documents (manifests, toolgen.yaml files, lint cases)
  json      its JSON documents (schemas, generated files, fixtures), up to 64 KiB each
  schema    schema NUL instance, from the official JSON-Schema-Test-Suite cases
  rpc       JSON-RPC sessions: the messages the serve tests send, after an initialize
  feedback  the replies the lifecycle tests read
  intent    the intents the generator tests compile
  openapi   the OpenAPI documents of the tests (tests/testdata/openapi, the small ones)

Everything comes from files of the checkout; nothing is downloaded.
"""
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_BYTES = 64 << 10


def put(out, target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def files(*patterns):
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            if os.path.isfile(path) and os.path.getsize(path) <= MAX_BYTES:
                with open(path, "rb") as f:
                    yield f.read()


def c_strings(path):
    """The string literals of a C file, unescaped (adjacent literals are not joined)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        try:
            yield m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
        except (UnicodeDecodeError, ValueError):
            continue


def rpc_messages():
    """JSON-RPC messages the serve tests send: single-quoted in the shell tests, C strings in
    the unit tests."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/cli/serve*.sh")) +
                       glob.glob(os.path.join(ROOT, "tests/cli/lifecycle.sh"))):
        with open(path, encoding="utf-8") as f:
            found += re.findall(r"'(\{\"jsonrpc\":\"2\.0\"[^']*\})'", f.read())
    for s in c_strings("tests/unit/test_serve.c"):
        if s.startswith('{"jsonrpc"'):
            found.append(s)
    msgs = []
    for s in found:
        try:
            msgs.append(json.dumps(json.loads(s), separators=(",", ":")))
        except ValueError:
            continue
    return sorted(set(msgs))


def main():
    out = sys.argv[1]
    for data in files("manifests/**/*.yaml", "toolsets/**/*.yaml", "tests/lint/**/*.yaml",
                      "tests/golden/**/*.yaml", "tests/**/toolgen.yaml", "toolgen.yaml"):
        put(out, "yaml", data)
    for data in files("schemas/*.json", "generated/**/*.json", "tests/golden/**/*.json",
                      "tests/newgen/*.json"):
        put(out, "json", data)
    suite = os.path.join(ROOT, "tests/testdata/json-schema-test-suite/tests/draft2020-12")
    for path in sorted(glob.glob(os.path.join(suite, "*.json"))):
        with open(path, encoding="utf-8") as f:
            for case in json.load(f):
                schema = json.dumps(case["schema"])
                for t in case["tests"][:2]:
                    put(out, "schema", schema + "\0" + json.dumps(t["data"]))
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "fuzz", "version": "1"}}})
    for m in rpc_messages():
        put(out, "rpc", m)
        put(out, "rpc", init + "\n" + m)
    for s in c_strings("tests/unit/test_lifecycle.c"):
        if s and len(s) < 200:
            put(out, "feedback", s)
    for s in c_strings("tests/unit/test_builtin.c"):
        if " " in s and 5 < len(s) < 300:
            put(out, "intent", s)
    with open(os.path.join(ROOT, "tests/gen/builtin_gen.py"), encoding="utf-8") as f:
        for s in re.findall(r'^\s*\("\w+", "([^"]+)"', f.read(), re.M):
            put(out, "intent", s)
    for data in files("tests/testdata/openapi/*.yaml", "tests/testdata/openapi/*.json"):
        put(out, "openapi", data)
    for target in ("yaml", "json", "schema", "rpc", "feedback", "intent", "openapi"):
        n = len(os.listdir(os.path.join(out, target))) if os.path.isdir(os.path.join(out, target)) else 0
        print(f"seeds: {target}: {n}")


if __name__ == "__main__":
    main()
