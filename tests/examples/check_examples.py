#!/usr/bin/python3
"""Run the examples (and, with --tests, the tests) of the repository's example manifests.

For every manifest under manifests/ whose implementation is python, node or command, each
example's input is run through the implementation in a subprocess and the result is compared
with the recorded output (numbers with a small tolerance) and checked against output_schema.
With --tests, every test case is run as well and its `expect` block checked.

This is a stand-alone cross-check of the hand-written examples, independent of toolgen's own
runner and sandbox: it needs only the Debian packages python3-yaml (to read manifests) and, for
the tools themselves, python3-pandas, python3-matplotlib and nodejs. Run it with the system
Python (a pyenv python may lack pandas):

    /usr/bin/python3 tests/examples/check_examples.py [--tests] [-v] [MANIFEST_DIR...]

Each call runs in a scratch working directory that mirrors the repository root through
symlinks, so repository-relative paths such as data/iris.csv resolve while the files a tool
writes (its artifacts) stay out of the tree. The examples and tests of a tool whose runtime this
version does not run (http) are skipped, each named on a "SKIP [known] ..." line. Prints one
result line, "example-tools: N passed, N failed, N skipped", then the examples and the tests
apart, and exits 1 when anything failed, 2 on a usage or setup problem.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ERROR_CODES = {
    "INVALID_INPUT", "NOT_FOUND", "CONFLICT", "UNAUTHORIZED", "FORBIDDEN", "TIMEOUT",
    "RATE_LIMITED", "UPSTREAM_ERROR", "INTERNAL_ERROR",
}

# ---------------------------------------------------------------------------------------------
# YAML: the YAML 1.2 core schema toolgen uses (only true/false are booleans; yes/no/on/off are
# strings), duplicate keys refused.

try:
    import yaml
except ImportError:  # pragma: no cover - depends on the machine
    sys.stderr.write("check_examples: PyYAML is missing; install the Debian package python3-yaml\n")
    sys.exit(2)


class ManifestLoader(yaml.SafeLoader):
    pass


ManifestLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
ManifestLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep)


ManifestLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=ManifestLoader)


# ---------------------------------------------------------------------------------------------
# A small JSON Schema checker: the subset of 2020-12 the example manifests use. Unknown
# keywords are ignored; only local references (#/$defs/...) are followed.

def _is_type(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return False


def _resolve(root, ref):
    if not ref.startswith("#"):
        raise ValueError(f"only local $ref supported, got {ref}")
    node = root
    for token in ref[1:].split("/")[1:]:
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def schema_errors(schema, value, root=None, path=""):
    """Returns a list of "path: message" strings; empty when value is valid."""
    root = schema if root is None else root
    if schema is True:
        return []
    if schema is False:
        return [f"{path or '/'}: no value is allowed here"]
    errs = []
    if "$ref" in schema:
        errs += schema_errors(_resolve(root, schema["$ref"]), value, root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            return errs + [f"{path or '/'}: expected {'/'.join(types)}, got {json.dumps(value)[:60]}"]
    if "const" in schema and not json_equal(value, schema["const"]):
        errs.append(f"{path or '/'}: must be {json.dumps(schema['const'])}")
    if "enum" in schema and not any(json_equal(value, e) for e in schema["enum"]):
        errs.append(f"{path or '/'}: must be one of {json.dumps(schema['enum'])}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errs.append(f"{path or '/'}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(f"{path or '/'}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errs.append(f"{path or '/'}: does not match pattern {schema['pattern']}")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errs.append(f"{path or '/'}: less than {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errs.append(f"{path or '/'}: greater than {schema['maximum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            errs.append(f"{path or '/'}: not greater than {schema['exclusiveMinimum']}")
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            errs.append(f"{path or '/'}: not less than {schema['exclusiveMaximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errs.append(f"{path or '/'}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(f"{path or '/'}: more than {schema['maxItems']} items")
        if schema.get("uniqueItems"):
            for i in range(len(value)):
                if any(json_equal(value[i], value[j]) for j in range(i)):
                    errs.append(f"{path}/{i}: duplicate item")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if sub is not None:
                errs += schema_errors(sub, item, root, f"{path}/{i}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                errs.append(f"{path or '/'}: missing required property \"{name}\"")
        props = schema.get("properties", {})
        for name, item in value.items():
            if name in props:
                errs += schema_errors(props[name], item, root, f"{path}/{name}")
            elif "additionalProperties" in schema:
                errs += schema_errors(schema["additionalProperties"], item, root, f"{path}/{name}")
    for sub in schema.get("allOf", []):
        errs += schema_errors(sub, value, root, path)
    if "anyOf" in schema and all(schema_errors(s, value, root, path) for s in schema["anyOf"]):
        errs.append(f"{path or '/'}: matches none of anyOf")
    if "oneOf" in schema and sum(not schema_errors(s, value, root, path) for s in schema["oneOf"]) != 1:
        errs.append(f"{path or '/'}: does not match exactly one of oneOf")
    if "not" in schema and not schema_errors(schema["not"], value, root, path):
        errs.append(f"{path or '/'}: matches a schema it must not match")
    if "if" in schema:
        branch = "then" if not schema_errors(schema["if"], value, root, path) else "else"
        if branch in schema:
            errs += schema_errors(schema[branch], value, root, path)
    return errs


def apply_defaults(input_schema, args):
    """Top-level defaults, as toolgen's runner applies them before calling the tool."""
    args = dict(args)
    for name, prop in input_schema.get("properties", {}).items():
        if name not in args and isinstance(prop, dict) and "default" in prop:
            args[name] = prop["default"]
    return args


# ---------------------------------------------------------------------------------------------
# Comparison

def json_equal(a, b, tolerance=0.0):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return numbers_match(a, b, tolerance)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k], tolerance) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y, tolerance) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def numbers_match(a, b, tolerance):
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def _canonical(value):
    return json.dumps(value, sort_keys=True)


def compare(expected, actual, tolerance, unordered, subset, path=""):
    """Returns the first difference as a string, or None. See the `expect` block of the schema."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path or '/'}: expected an object, got {json.dumps(actual)[:80]}"
        if not subset and expected.keys() != actual.keys():
            extra = sorted(set(actual) - set(expected))
            missing = sorted(set(expected) - set(actual))
            return f"{path or '/'}: keys differ (missing {missing}, unexpected {extra})"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}/{key}: missing"
            diff = compare(value, actual[key], tolerance, unordered, subset, f"{path}/{key}")
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path or '/'}: expected an array, got {json.dumps(actual)[:80]}"
        if path in unordered:
            remaining = list(actual)
            for item in expected:
                match = next((i for i, a in enumerate(remaining)
                              if compare(item, a, tolerance, unordered, subset, path) is None), None)
                if match is None:
                    return f"{path}: no element matches {json.dumps(item)[:80]}"
                remaining.pop(match)
            if remaining and not subset:
                return f"{path}: {len(remaining)} unexpected element(s), e.g. {json.dumps(remaining[0])[:80]}"
            return None
        if len(expected) != len(actual):
            return f"{path or '/'}: expected {len(expected)} items, got {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            diff = compare(e, a, tolerance, unordered, subset, f"{path}/{i}")
            if diff:
                return diff
        return None
    if json_equal(expected, actual, tolerance):
        return None
    return f"{path or '/'}: expected {json.dumps(expected)[:80]}, got {json.dumps(actual)[:80]}"


# ---------------------------------------------------------------------------------------------
# Running an implementation

PYTHON_RUNNER = r"""
import importlib.util, json, sys
file, entry, out = sys.argv[1:4]
CODES = %s
def code_of(e):
    code = getattr(e, "code", None)
    if isinstance(code, str) and code in CODES:
        return code
    if isinstance(e, FileNotFoundError):
        return "NOT_FOUND"
    if isinstance(e, PermissionError):
        return "FORBIDDEN"
    if isinstance(e, TimeoutError):
        return "TIMEOUT"
    if isinstance(e, (ValueError, KeyError, TypeError)):
        return "INVALID_INPUT"
    return "INTERNAL_ERROR"
args = json.load(sys.stdin)
try:
    spec = importlib.util.spec_from_file_location("tool", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reply = {"ok": True, "result": getattr(module, entry)(**args)}
except Exception as e:
    reply = {"ok": False, "code": code_of(e), "message": str(e), "type": type(e).__name__}
with open(out, "w") as f:
    json.dump(reply, f)
""" % sorted(ERROR_CODES)

NODE_RUNNER = r"""
const fs = require('fs'), path = require('path'), url = require('url');
const [file, entry, out] = process.argv.slice(1);
const CODES = new Set(%s);
function codeOf(e) {
  if (e && CODES.has(e.code)) return e.code;
  if (e && e.code === 'ENOENT') return 'NOT_FOUND';
  if (e && (e.code === 'EACCES' || e.code === 'EPERM')) return 'FORBIDDEN';
  if (e instanceof TypeError || e instanceof RangeError) return 'INVALID_INPUT';
  return 'INTERNAL_ERROR';
}
const args = JSON.parse(fs.readFileSync(0, 'utf8'));
const load = file.endsWith('.mjs') ? import(url.pathToFileURL(path.resolve(file)).href)
                                   : Promise.resolve(require(path.resolve(file)));
load.then(mod => mod[entry](args))
  .then(result => ({ok: true, result}),
        e => ({ok: false, code: codeOf(e), message: String(e && e.message || e), type: e && e.name}))
  .then(reply => fs.writeFileSync(out, JSON.stringify(reply)));
""" % json.dumps(sorted(ERROR_CODES))

PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _render(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_argv(template, args):
    """The argv template rules of the manifest schema (impl_command.argv)."""
    argv = [template[0]]
    for element in template[1:]:
        whole = re.fullmatch(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", element)
        if whole:
            name = whole.group(1)
            if name not in args:
                continue
            value = args[name]
            argv += [_render(v) for v in value] if isinstance(value, list) else [_render(value)]
            continue
        names = [m.group(1) for m in PLACEHOLDER.finditer(element) if m.group(1)]
        if any(n not in args for n in names):
            continue
        argv.append(PLACEHOLDER.sub(
            lambda m: "{" if m.group(0) == "{{" else "}" if m.group(0) == "}}" else _render(args[m.group(1)]),
            element))
    return argv


class Call:
    """One run of a tool: either a result or an error code + message, plus the artifacts."""

    def __init__(self, ok, result=None, code=None, message="", artifacts=()):
        self.ok, self.result, self.code, self.message = ok, result, code, message
        self.artifacts = sorted(artifacts)

    def describe(self):
        return "ok" if self.ok else f"{self.code}: {self.message}"


def make_workdir():
    """A scratch directory whose top-level entries are symlinks to the repository's."""
    work = tempfile.mkdtemp(prefix="toolgen-examples-")
    for entry in os.listdir(ROOT):
        if not entry.startswith("."):
            os.symlink(os.path.join(ROOT, entry), os.path.join(work, entry))
    return work


def artifacts_of(work):
    return [e for e in os.listdir(work) if not os.path.islink(os.path.join(work, e))]


def run_tool(manifest, tool_dir, args):
    impl = manifest["implementation"]
    timeout = manifest.get("timeout_ms", 30000) / 1000 + 30
    work = make_workdir()
    try:
        if impl["runtime"] in ("python", "node"):
            out = os.path.join(tempfile.mkdtemp(prefix="toolgen-reply-"), "reply.json")
            code_file = os.path.join(tool_dir, impl["file"])
            if impl["runtime"] == "python":
                cmd = [PYTHON, "-c", PYTHON_RUNNER, code_file, impl["entrypoint"], out]
            else:
                cmd = ["node", "-e", NODE_RUNNER, code_file, impl["entrypoint"], out]
            proc = subprocess.run(cmd, input=json.dumps(args), cwd=work, capture_output=True,
                                  text=True, timeout=timeout)
            if not os.path.exists(out):
                return Call(False, code="INTERNAL_ERROR",
                            message=f"runner failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
            with open(out) as f:
                reply = json.load(f)
            shutil.rmtree(os.path.dirname(out))
            if reply["ok"]:
                return Call(True, result=reply["result"], artifacts=artifacts_of(work))
            return Call(False, code=reply["code"], message=reply["message"])
        if impl["runtime"] == "command":
            argv = render_argv(impl["argv"], args)
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "HOME": work}
            env.update({k: PLACEHOLDER.sub(lambda m: _render(args.get(m.group(1), "")) if m.group(1)
                                           else m.group(0)[0], v)
                        for k, v in impl.get("env", {}).items()})
            cwd = os.path.join(work, impl.get("cwd", "."))
            proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=timeout)
            if proc.returncode != 0:
                code = impl.get("exit_codes", {}).get(str(proc.returncode), "UPSTREAM_ERROR")
                return Call(False, code=code, message=proc.stderr.decode("utf-8", "replace")[-2000:])
            text = proc.stdout.decode("utf-8")
            result = json.loads(text) if impl["stdout"] == "json" else {"text": text.rstrip("\n")}
            return Call(True, result=result, artifacts=artifacts_of(work))
        raise ValueError(f"runtime {impl['runtime']} is not run by this script")
    except subprocess.TimeoutExpired:
        return Call(False, code="TIMEOUT", message=f"no answer within {timeout:.0f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Checks

def check_example(manifest, tool_dir, example):
    args = apply_defaults(manifest["input_schema"], example["input"])
    errs = schema_errors(manifest["input_schema"], example["input"])
    if errs:
        return f"input does not fit input_schema: {errs[0]}"
    errs = schema_errors(manifest["output_schema"], example["output"])
    if errs:
        return f"recorded output does not fit output_schema: {errs[0]}"
    call = run_tool(manifest, tool_dir, args)
    if not call.ok:
        return f"the call failed: {call.describe()}"
    errs = schema_errors(manifest["output_schema"], call.result)
    if errs:
        return f"the real output does not fit output_schema: {errs[0]}"
    return compare(example["output"], call.result, 1e-6, set(), subset=False)


def check_test(manifest, tool_dir, test):
    expect = test["expect"]
    errs = schema_errors(manifest["input_schema"], test["input"])
    if errs:
        call = Call(False, code="INVALID_INPUT", message=errs[0])
    else:
        call = run_tool(manifest, tool_dir, apply_defaults(manifest["input_schema"], test["input"]))
    if "error" in expect:
        if call.ok:
            return f"expected error {expect['error']}, the call succeeded"
        if call.code != expect["error"]:
            return f"expected error {expect['error']}, got {call.describe()}"
        for s in expect.get("message_contains", []):
            if s not in call.message:
                return f"error message {call.message!r} does not contain {s!r}"
        return None
    if not call.ok:
        return f"the call failed: {call.describe()}"
    result = call.result
    tolerance = expect.get("tolerance", 1e-9)
    unordered = set(expect.get("unordered", []))
    errs = schema_errors(manifest["output_schema"], result)
    if errs:
        return f"output does not fit output_schema: {errs[0]}"
    if "output" in expect:
        diff = compare(expect["output"], result, tolerance, unordered, subset=False)
        if diff:
            return f"output differs: {diff}"
    if "output_contains" in expect:
        diff = compare(expect["output_contains"], result, tolerance, unordered, subset=True)
        if diff:
            return f"output_contains: {diff}"
    text = result.get("summary_markdown", "")
    for s in expect.get("text_contains", []):
        if s not in text:
            return f"summary_markdown does not contain {s!r}"
    if "text_matches" in expect and not re.search(expect["text_matches"], text):
        return f"summary_markdown does not match {expect['text_matches']!r}"
    for name in expect.get("artifacts", []):
        if name not in call.artifacts:
            return f"artifact {name} missing (got {call.artifacts})"
    return None


RUNTIMES = ("python", "node", "command")  # the runtimes this version runs


def skip_line(kind, manifest, case):
    """The line that names a case skipped for its runtime (a known limitation of toolgen)."""
    runtime = manifest["implementation"]["runtime"]
    return (f"SKIP [known] {kind} {manifest['name']}/{case['name']}: runtime {runtime} is not "
            "run by this version")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", help="manifest folders (default: every folder of manifests/)")
    parser.add_argument("--tests", action="store_true", help="also run the manifests' tests")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    opts = parser.parse_args()

    dirs = opts.dirs or sorted(os.path.join(ROOT, "manifests", d)
                               for d in os.listdir(os.path.join(ROOT, "manifests")))
    counts = {"examples": [0, 0, 0], "tests": [0, 0, 0]}  # passed, failed, skipped
    for tool_dir in dirs:
        path = os.path.join(tool_dir, "tool.manifest.yaml")
        if not os.path.isfile(path):
            continue
        manifest = load_yaml(path)
        runs = manifest["implementation"]["runtime"] in RUNTIMES
        kinds = [("examples", check_example)] + ([("tests", check_test)] if opts.tests else [])
        for kind, check in kinds:
            for case in manifest.get(kind, []):
                if not runs:
                    counts[kind][2] += 1
                    print(skip_line(kind, manifest, case))
                    continue
                problem = check(manifest, tool_dir, case)
                counts[kind][problem is not None] += 1
                label = f"{manifest['name']}/{case['name']}"
                if problem:
                    print(f"FAIL {kind} {label}: {problem}")
                elif opts.verbose:
                    print(f"ok   {kind} {label}")
    # one result line for tests/run.sh, then the parts it adds up
    print("example-tools: %d passed, %d failed, %d skipped"
          % tuple(counts["examples"][i] + counts["tests"][i] for i in range(3)))
    print("  examples: passed=%d failed=%d skipped=%d" % tuple(counts["examples"]))
    if opts.tests:
        print("  tests: passed=%d failed=%d skipped=%d" % tuple(counts["tests"]))
    return 1 if counts["examples"][1] or counts["tests"][1] else 0


PYTHON = os.environ.get("PYTHON") or ("/usr/bin/python3" if os.path.exists("/usr/bin/python3")
                                      else sys.executable)

if __name__ == "__main__":
    sys.exit(main())
