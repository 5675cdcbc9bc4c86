#!/usr/bin/env python3
"""http_req.py — one raw HTTP request for the shell tests of `toolgen serve --http`.

usage: http_req.py METHOD URL [-H 'Name: value']... [-d BODY | --body-bytes N] [--raw-host HOST]
                   [--messages FILE]

Prints the status code on the first line, then the response headers (lower-case names), a blank
line and the body. With --messages FILE, every JSON-RPC message of the body (the JSON object, or
each SSE `data:` line) is appended to FILE, one per line, for schema validation. Exits 0 whenever
a response came back; 1 when the connection failed.
"""
import http.client
import json
import sys
import urllib.parse


def main(argv):
    method, url = argv[1], argv[2]
    headers, body, messages, host = [], None, None, None
    i = 3
    while i < len(argv):
        a = argv[i]
        if a == "-H":
            name, _, value = argv[i + 1].partition(":")
            headers.append((name.strip(), value.strip()))
        elif a == "-d":
            body = argv[i + 1].encode()
        elif a == "--body-bytes":
            body = b"x" * int(argv[i + 1])
        elif a == "--messages":
            messages = argv[i + 1]
        elif a == "--raw-host":
            host = argv[i + 1]
        else:
            sys.exit(f"http_req.py: unknown argument {a}")
        i += 2
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.putrequest(method, u.path, skip_host=host is not None, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        for name, value in headers:
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        r = conn.getresponse()
        data = r.read().decode("utf-8", "replace")
    except OSError as e:
        print(f"connection failed: {e}", file=sys.stderr)
        return 1
    print(r.status)
    for name, value in r.getheaders():
        print(f"{name.lower()}: {value}")
    print()
    print(data)
    if messages and data.strip():
        ctype = r.getheader("Content-Type") or ""
        lines = [l[5:].strip() for l in data.splitlines() if l.startswith("data:")] \
            if ctype.startswith("text/event-stream") else [data]
        with open(messages, "a", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(json.loads(line), separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
