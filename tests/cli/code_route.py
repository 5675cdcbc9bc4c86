#!/usr/bin/env python3
"""code_route.py — a code session's calls relayed between instances, for tests/cli/serve_scale.sh.

usage: code_route.py count URL HANDLE N
       code_route.py cancel OWNER RELAY CANCEL
       code_route.py resume OWNER RELAY OTHER

count: N 2026-07-28 calls of python_execute `x += 1; print(x)` in session HANDLE through URL
(a balancer: each lands on whichever instance round robin picks, which relays it to the
session's). Prints "counts: A B C ..." (each call's stdout, "ERR" for a failed one).

cancel: a legacy (2025-11-25) client: initialize and create_session on OWNER; then one
python_execute of the session that sleeps for 50 s, sent to RELAY (another instance, which
relays it to OWNER) with a progressToken, so that its reply is an event stream. Once the first
bytes of that stream arrive (the call is in flight on OWNER: the stream is relayed from there),
notifications/cancelled for it goes to CANCEL (RELAY itself, or a third instance with --peer).
Then the stream is read to its end. Prints "session: SID", "handle: H", "stream: started",
"reply: none" (the call was cancelled: MCP sends no reply) or "reply: JSON", and
"other client: TEXT", the answer to a second legacy session that uses the handle through RELAY
(a handle works only for the client that created it, relayed or not).

resume: a legacy client: initialize and create_session on OWNER; then one python_execute of
the session (it sleeps 2 s, then prints "resumed") sent to RELAY with a progressToken. The
first event's id is read (the owner's, naming it), and the stream is dropped; then GET with
Last-Event-ID to OTHER (a third instance), which relays it to OWNER, whose call went on.
Prints "event id: routed" (the id carries a route) or "event id: ID", "status: N" of the GET,
and "reply: JSON" (the call's reply, on the resumed stream) or "reply: none"; then the same
for the GET sent to OWNER itself ("owner status: N", "owner reply: ...").
"""
import http.client
import json
import sys
import urllib.parse

M26 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
       "io.modelcontextprotocol/clientCapabilities": {}}
V = "2025-11-25"


def conn(url):
    u = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120), u.path


def post(url, msg, headers):
    c, path = conn(url)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers)
    c.request("POST", path, json.dumps(msg), h)
    r = c.getresponse()
    data = r.read().decode("utf-8", "replace")
    c.close()
    ctype = r.getheader("content-type") or ""
    if ctype.startswith("text/event-stream"):
        msgs = [json.loads(line[5:]) for line in data.splitlines()
                if line.startswith("data:") and line[5:].strip()]
    else:
        msgs = [json.loads(data)] if data.strip() else []
    return r.status, r.getheader("mcp-session-id"), msgs


def result_of(msgs, rid):
    for m in msgs:
        if m.get("id") == rid:
            return m.get("result") or {}
    return {}


def count(url, handle, n):
    out = []
    for i in range(1, n + 1):
        params = {"_meta": M26, "name": "python_execute",
                  "arguments": {"session_id": handle, "code": "x += 1\nprint(x)"}}
        h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
             "Mcp-Name": "python_execute"}
        _, _, msgs = post(url, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                "params": params}, h)
        sc = result_of(msgs, i).get("structuredContent") or {}
        out.append(sc["stdout"].strip() if sc.get("success") else "ERR")
    print("counts: " + " ".join(out))
    return 0


def legacy_session(url):
    status, sid, _ = post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": V, "capabilities": {},
        "clientInfo": {"name": "code_route", "version": "1"}}}, {})
    h = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": V}
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
    return sid, h


def call(url, h, rid, name, args):
    _, _, msgs = post(url, {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                            "params": {"name": name, "arguments": args}}, h)
    return result_of(msgs, rid)


def cancel(owner, relay, canceller):
    sid, h = legacy_session(owner)
    print(f"session: {sid}")
    made = call(owner, h, 1, "create_session", {"runtime": "python"})
    handle = (made.get("structuredContent") or {}).get("session_id")
    print(f"handle: {handle}")
    c, r = open_call(relay, h, 7, {"session_id": handle,
                                   "code": "import time\ntime.sleep(50)\nprint('slept')"})
    first = r.readline()  # the call is in flight on the owner: its stream is relayed from there
    print("stream: started" if first else "stream: empty")
    post(canceller, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 7, "reason": "test"}}, h)
    rest = (first + r.read()).decode("utf-8", "replace")
    c.close()
    replies = [line[5:] for line in rest.splitlines()
               if line.startswith("data:") and '"id":7' in line]
    print("reply: " + (replies[0].strip() if replies else "none"))
    _, h2 = legacy_session(owner)
    other = call(relay, h2, 1, "python_execute", {"session_id": handle, "code": "print(1)"})
    text = ((other.get("content") or [{}])[0]).get("text", "")
    print("other client: " + text.replace("\n", " ")[:400])
    return 0


def open_call(relay, h, rid, args):
    """A legacy python_execute with a progress token: its reply an event stream, open."""
    c, path = conn(relay)
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
        "name": "python_execute", "_meta": {"progressToken": f"p{rid}"}, "arguments": args}}
    hh = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    hh.update(h)
    c.request("POST", path, json.dumps(body), hh)
    return c, c.getresponse()


def resume(owner, relay, other):
    sid, h = legacy_session(owner)
    made = call(owner, h, 1, "create_session", {"runtime": "python"})
    handle = (made.get("structuredContent") or {}).get("session_id")
    c, r = open_call(relay, h, 8, {"session_id": handle,
                                   "code": "import time\ntime.sleep(2)\nprint('resumed')"})
    last = None
    while last is None:
        line = r.readline().decode()
        if not line:
            break
        if line.startswith("id:"):
            last = line[3:].strip()
    c.close()  # the stream is lost; the legacy call goes on
    print("event id: " + ("routed" if last and "." in last else str(last)))
    for who, url in (("", other), ("owner ", owner)):  # relayed; then on the owner itself
        g, path = conn(url)
        hh = {"Accept": "text/event-stream", "Last-Event-ID": last or ""}
        hh.update(h)
        g.request("GET", path, headers=hh)
        gr = g.getresponse()
        print(f"{who}status: {gr.status}")
        reply = None
        while reply is None:
            line = gr.readline().decode()
            if not line:
                break
            if line.startswith("data:") and '"id":8' in line:
                reply = line[5:].strip()
        g.close()
        print(f"{who}reply: " + (reply or "none"))
    return 0


def main(argv):
    if argv[1] == "resume":
        return resume(argv[2], argv[3], argv[4])
    if argv[1] == "count":
        return count(argv[2], argv[3], int(argv[4]))
    if argv[1] == "cancel":
        return cancel(argv[2], argv[3], argv[4])
    sys.exit("usage: code_route.py count URL HANDLE N | cancel OWNER RELAY CANCEL")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
