#!/usr/bin/python3
"""Every example and test of the repository's tools, run through `toolgen run` (the sandbox).

tests/examples/check_examples.py checks the recorded outputs with a plain subprocess; this runs
the same checks, with the same comparison code, but each call goes through
`toolgen run TOOL_DIR --input JSON --json`: toolgen's runner, bubblewrap, limits, input and
output validation. Both must agree. Tests that feed invalid arguments on purpose are run too,
and must come back as INVALID_INPUT from toolgen's own input validation.

Usage: /usr/bin/python3 tests/sandbox/run_examples.py [-v] [MANIFEST_DIR...]
Prints "run-examples: N passed, N failed, N skipped"; the cases of a tool whose runtime this
version does not run (http) are skipped, each named on a "SKIP [known] ..." line.
"""

import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "examples"))
import check_examples as ce  # noqa: E402

TOOLGEN = os.environ.get("TOOLGEN_ABS") or os.path.join(ROOT, "bin", "toolgen")


def run_tool(manifest, tool_dir, args):
    proc = subprocess.run([TOOLGEN, "run", tool_dir, "--input", json.dumps(args), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    if proc.returncode not in (0, 1):
        return ce.Call(False, code="ENVIRONMENT",
                       message=f"toolgen run exited {proc.returncode}: {proc.stderr[-2000:]}")
    env = json.loads(proc.stdout)
    if env["success"]:
        return ce.Call(True, result=env["result"], artifacts=[f["path"] for f in env["files"]])
    return ce.Call(False, code=env["error"]["code"], message=env["error"]["message"])


ce.run_tool = run_tool


def check_invalid_input(manifest, tool_dir, test):
    """A test whose input breaks input_schema: toolgen must refuse it before running."""
    call = run_tool(manifest, tool_dir, test["input"])
    if call.ok or call.code != "INVALID_INPUT":
        return f"expected INVALID_INPUT from toolgen's input validation, got {call.describe()}"
    return None


def cases(dirs):
    for tool_dir in dirs:
        path = os.path.join(tool_dir, "tool.manifest.yaml")
        if not os.path.isfile(path):
            continue
        manifest = ce.load_yaml(path)
        if manifest["implementation"]["runtime"] not in ce.RUNTIMES:
            for kind in ("example", "test"):
                for case in manifest.get(kind + "s", []):
                    yield manifest, tool_dir, "skip", case, kind
            continue
        for ex in manifest.get("examples", []):
            yield manifest, tool_dir, "example", ex, ce.check_example
        for t in manifest.get("tests", []):
            yield manifest, tool_dir, "test", t, ce.check_test
            if t["expect"].get("error") == "INVALID_INPUT" and \
                    ce.schema_errors(manifest["input_schema"], t["input"]):
                yield manifest, tool_dir, "input-check", t, check_invalid_input


def main():
    verbose = "-v" in sys.argv[1:]
    dirs = [a for a in sys.argv[1:] if a != "-v"]
    if not dirs:
        mdir = os.path.join(ROOT, "manifests")
        dirs = sorted(os.path.join(mdir, d) for d in os.listdir(mdir))
    todo = list(cases(dirs))
    skipped = [ce.skip_line(what, m, case) for m, _, kind, case, what in todo if kind == "skip"]
    todo = [t for t in todo if t[2] != "skip"]
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = [(m, kind, case, pool.submit(check, m, d, case))
                   for m, d, kind, case, check in todo]
        for m, kind, case, fut in futures:
            try:
                problem = fut.result()
            except Exception as e:  # a crash of the harness is a failure, not an abort
                problem = f"harness error: {e!r}"
            label = f"{m['name']}/{case['name']}"
            if problem:
                failed += 1
                print(f"FAIL {kind} {label}: {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"ok   {kind} {label}")
    for line in skipped:
        print(line)
    print(f"run-examples: {passed} passed, {failed} failed, {len(skipped)} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
