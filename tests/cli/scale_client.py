#!/usr/bin/env python3
"""scale_client.py — tool calls through a load balancer, for tests/cli/serve_scale.sh.

usage: scale_client.py URL N [--legacy] [--tool NAME] [--args JSON]
       scale_client.py --mrtr URL1 URL2 URL3

Makes N tools/call requests of NAME (default a_tool) with ARGS (default
{"file_path":"data/x.csv"}) one after another over one keep-alive connection to URL:

  - 2026-07-28 (default): each request stateless, with its _meta and the MCP-Protocol-Version,
    Mcp-Method and Mcp-Name headers;
  - --legacy: initialize first (a 2025-11-25 session), notifications/initialized, then every
    call with the Mcp-Session-Id the initialize reply gave.

Prints one "FAIL i: why" line per failed call and "calls: N ok, N failed" last; exits 0 when
every call returned a result with isError false.

--mrtr: one 2026-07-28 call of count_column (tests/testdata/ask_tool) on data/c.csv whose three
rounds go to URL1, URL2 and URL3 in turn: the call, input_required asking for the column; the
retry with the answer and the requestState, asking for confirmation; the retry with that,
ending with the result. Prints each round's reply, one line each.
"""
import http.client
import json
import sys
import urllib.parse

M26 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
       "io.modelcontextprotocol/clientCapabilities": {}}


def body_messages(resp_body, ctype):
    """The JSON-RPC messages of a response: the JSON object, or each SSE data: line."""
    text = resp_body.decode("utf-8", "replace")
    if ctype.startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in text.splitlines()
                if line.startswith("data:") and line[5:].strip()]
    return [json.loads(text)] if text.strip() else []


class Conn:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = u.hostname, u.port, u.path
        self.c = http.client.HTTPConnection(self.host, self.port, timeout=300)

    def post(self, msg, headers):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        h.update(headers)
        for attempt in (0, 1):  # a keep-alive connection the balancer closed: once more
            try:
                self.c.request("POST", self.path, json.dumps(msg), h)
                r = self.c.getresponse()
                data = r.read()
                return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.c.close()
                self.c = http.client.HTTPConnection(self.host, self.port, timeout=300)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def mrtr(urls):
    caps = dict(M26)
    caps["io.modelcontextprotocol/clientCapabilities"] = {"elicitation": {}}
    answers = [None, {"column": {"action": "accept", "content": {"column": "b"}}},
               {"sure": {"action": "accept", "content": {"sure": True}}}]
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
         "Mcp-Name": "count_column"}
    state = None
    for i, url in enumerate(urls):
        params = {"_meta": caps, "name": "count_column", "arguments": {"file_path": "data/c.csv"}}
        if state:
            params.update(requestState=state, inputResponses=answers[i])
        status, hdrs, data = Conn(url).post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                             "params": params}, h)
        msgs = body_messages(data, hdrs.get("content-type", ""))
        print(json.dumps({"status": status, "reply": msgs[-1] if msgs else None},
                         separators=(",", ":"), ensure_ascii=False))
        state = (msgs[-1].get("result") or {}).get("requestState") if msgs else None
    return 0


def main(argv):
    if argv[1] == "--mrtr":
        return mrtr(argv[2:5])
    url, n = argv[1], int(argv[2])
    legacy = "--legacy" in argv
    tool = argv[argv.index("--tool") + 1] if "--tool" in argv else "a_tool"
    args = json.loads(argv[argv.index("--args") + 1]) if "--args" in argv else {"file_path": "data/x.csv"}
    c = Conn(url)
    headers = {}
    if legacy:
        status, hdrs, data = c.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "scale_client", "version": "1"}}}, {})
        sid = hdrs.get("mcp-session-id")
        if status != 200 or not sid:
            print(f"FAIL initialize: {status} {data[:300]!r}")
            print("calls: 0 ok, %d failed" % n)
            return 1
        headers = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
        c.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    good = 0
    for i in range(1, n + 1):
        params = {"name": tool, "arguments": args}
        h = dict(headers)
        if not legacy:
            params["_meta"] = M26
            h.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                      "Mcp-Name": tool})
        status, hdrs, data = c.post({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                     "params": params}, h)
        try:
            msgs = body_messages(data, hdrs.get("content-type", ""))
            reply = [m for m in msgs if m.get("id") == i]
            ok = status == 200 and reply and reply[0].get("result", {}).get("isError") is False
        except ValueError:
            ok = False
        if ok:
            good += 1
        else:
            print(f"FAIL {i}: {status} {data[:300]!r}")
    print(f"calls: {good} ok, {n - good} failed")
    return 0 if good == n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
