#!/bin/sh
# bench/code_edit.sh [COUNT] — toolgen's own cost per call of generate_code_snippet beyond the
# model's latency (rendering, the answer's code block, verification in the sandbox, the result):
# `toolgen serve --toolset code-edit` over stdio asks a loopback OpenAI-compatible stand-in
# (tests/newgen/fake_llm.py, which answers at once) for a Python snippet, each call a new
# prompt (no cache hit). The p50 and p90 of the tools/call round trip (the stand-in's own
# answer, about a millisecond, included), for a served call (the checker through the warm pool) and for
# `toolgen run` (the checker in a cold sandbox), beside `python3 -m py_compile` + `python3 -m
# pyflakes` run as plain subprocesses on the same code. A pause of PAUSE_MS (default 300)
# between served calls stands for the model's latency, during which the pool replaces the
# worker a call used. Not a test: docs/benchmarks.md has the results. Work files in $BENCH_DIR.
set -eu
COUNT=${1:-40}
PAUSE_MS=${PAUSE_MS:-300}
TG=${TOOLGEN:-$PWD/bin/toolgen}
W=${BENCH_DIR:-$PWD/bench/work/code_edit}
rm -rf "$W" && mkdir -p "$W/repo/manifests"
cat >"$W/script.json" <<'JSON'
{"snippet": [{"text": "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```\nIterative."}]}
JSON
python3 tests/newgen/fake_llm.py "$W/script.json" "$W/log.jsonl" "$W/port" &
FAKE=$!
trap 'kill $FAKE 2>/dev/null' EXIT
while [ ! -s "$W/port" ]; do sleep 0.05; done
cat >"$W/repo/toolgen.yaml" <<YAML
config_version: 1
llm:
  provider: openai
  model: fake
  base_url: http://127.0.0.1:$(cat "$W/port")/v1
  max_retries: 0
YAML
python3 - "$COUNT" "$PAUSE_MS" "$TG" "$W" "$PWD/toolsets/code-edit/manifests/generate_code_snippet" <<'PY'
import json, os, statistics, subprocess, sys, time
count, pause, tg, w, tool = int(sys.argv[1]), int(sys.argv[2]) / 1000, sys.argv[3], sys.argv[4], sys.argv[5]
repo = os.path.join(w, "repo")

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]

def row(label, xs):
    print(f"{label:58s} p50 {pct(xs, .5):7.1f} ms   p90 {pct(xs, .9):7.1f} ms   (n={len(xs)})")

p = subprocess.Popen([tg, "-C", repo, "serve", "--toolset", "code-edit"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def rpc(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "bench", "version": "1"}})
served, inner = [], []
for i in range(count + 3):
    time.sleep(pause)
    t0 = time.perf_counter()
    r = rpc(i + 1, "tools/call", {"name": "generate_code_snippet",
                                  "arguments": {"prompt": f"fibonacci number {i}", "language": "python"}})
    ms = (time.perf_counter() - t0) * 1000
    s = r["result"]["structuredContent"]
    assert s["status"] == "success" and s["verification"]["verified"], s
    if i >= 3:  # the first calls start the pool's worker
        served.append(ms)
p.stdin.close(); p.wait()
cold = []
for i in range(max(5, count // 4)):
    t0 = time.perf_counter()
    out = subprocess.run([tg, "-C", repo, "run", tool, "--json", "--input",
                          json.dumps({"prompt": f"cold fibonacci {i}", "language": "python"})],
                         capture_output=True, text=True)
    cold.append((time.perf_counter() - t0) * 1000)
    assert json.loads(out.stdout)["result"]["verification"]["verified"], out.stdout
code = os.path.join(w, "snippet.py")
open(code, "w").write("def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n")
plain = []
for i in range(max(5, count // 4)):
    t0 = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-m", "py_compile", code], check=True)
    subprocess.run(["/usr/bin/python3", "-m", "pyflakes", code], check=True)
    plain.append((time.perf_counter() - t0) * 1000)
print(f"generate_code_snippet, Python, a loopback provider ({count} calls, {pause * 1000:.0f} ms apart)")
row("served call (tools/call round trip, checker warm)", served)
row("toolgen run (whole process, checker in a cold sandbox)", cold)
row("peer: python3 -m py_compile + python3 -m pyflakes", plain)
PY
