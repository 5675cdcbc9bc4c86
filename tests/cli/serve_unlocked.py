#!/usr/bin/env python3
"""serve_unlocked.py — while generate_tool works, the server answers other requests.

usage: serve_unlocked.py URL LLM_LOG RELEASE_FILE HANG_S

Drives `toolgen serve --http` (workflow on, a fake model whose intent answer is held until
RELEASE_FILE exists): calls generate_tool in a thread, waits until the model has been asked
(the generation is then in progress and cannot end before the release), then asks tools/list
and calls another tool, and only then releases the model. Prints one JSON object: what came
back, how long each answer took (measured, for the log; not a check), and whether generate_tool
was still working when they did. HANG_S bounds every wait: it only protects against a hang.
"""
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

URL, LLM_LOG, RELEASE = sys.argv[1:4]
HANG_S = float(sys.argv[4])
U = urllib.parse.urlsplit(URL)
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def post(method, params, rid, name=None, timeout=HANG_S):
    """One 2026-07-28 request; returns (reply, seconds)."""
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                       "params": dict(params, _meta=META)}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name:
        headers["Mcp-Name"] = name
    conn = http.client.HTTPConnection(U.hostname, U.port, timeout=timeout)
    t0 = time.monotonic()
    try:
        conn.request("POST", U.path, body, headers)
        data = conn.getresponse().read()
        return json.loads(data), time.monotonic() - t0
    except (OSError, ValueError) as e:
        return {"transport_error": str(e)}, time.monotonic() - t0
    finally:
        conn.close()


def call(name, args, rid, timeout=HANG_S):
    return post("tools/call", {"name": name, "arguments": args}, rid, name, timeout)


def model_asked():
    try:
        with open(LLM_LOG) as f:
            return any('"kind": "intent"' in line for line in f)
    except OSError:
        return False


GROUP = {"file_path": "data/tips.csv", "group_by_columns": ["day"]}
out = {}
warm, _ = call("group_and_count_by_columns", GROUP, 1)  # the pool's worker is ready after it
out["warm_ok"] = "result" in warm and not warm["result"].get("isError")

gen = {}


def generate():
    gen["reply"], gen["seconds"] = call(
        "generate_tool", {"intent": "average tip by day", "data_file": "data/tips.csv"}, 2)
    gen["done_at"] = time.monotonic()


t = threading.Thread(target=generate)
t.start()
deadline = time.monotonic() + HANG_S
while not model_asked() and time.monotonic() < deadline:
    time.sleep(0.05)
out["model_asked"] = model_asked()

# a server that holds its lock through the generation would make these wait until the release,
# which comes only after them: they would never be answered, and the hang bound ends the wait
listed, out["list_s"] = post("tools/list", {}, 3)
names = [x.get("name") for x in listed.get("result", {}).get("tools", [])]
out["list_names"] = names
called, out["call_s"] = call("group_and_count_by_columns", GROUP, 4)
out["call_ok"] = "result" in called and not called["result"].get("isError")
out["generate_pending"] = "reply" not in gen
released_at = time.monotonic()
with open(RELEASE, "w"):
    pass
t.join(HANG_S)
reply = gen.get("reply", {})
out["generate_ended_after_release"] = gen.get("done_at", 0) >= released_at
sc = reply.get("result", {}).get("structuredContent") or {}
out["generate_state"] = sc.get("state") or json.dumps(reply)[:400]
print(json.dumps(out))
