#!/usr/bin/env python3
"""http_stream.py — holds one long-lived event stream of `toolgen serve --http` open for the
shell tests (a legacy session's GET stream, a 2026-07-28 subscriptions/listen).

usage: http_stream.py OUT METHOD URL [-H 'Name: value']... [-d BODY]

Writes to OUT, as they arrive (flushed at once, so a test can wait for them): "status N" on
the first line, then one line per SSE event — its data (a JSON-RPC message) — and a line
"comment" per SSE comment. Ends with a line "end" when the server ends the stream; runs until
then, or until it is killed (the test closes the stream that way). Exits 0 when a response came
back, 1 when the connection failed.
"""
import http.client
import sys
import urllib.parse


def main(argv):
    out_path, method, url = argv[1], argv[2], argv[3]
    headers, body = [], None
    i = 4
    while i < len(argv):
        if argv[i] == "-H":
            name, _, value = argv[i + 1].partition(":")
            headers.append((name.strip(), value.strip()))
        elif argv[i] == "-d":
            body = argv[i + 1].encode()
        else:
            sys.exit(f"http_stream.py: unknown argument {argv[i]}")
        i += 2
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    with open(out_path, "w", encoding="utf-8") as out:
        try:
            conn.request(method, u.path, body=body, headers=dict(headers))
            r = conn.getresponse()
        except OSError as e:
            print(f"connection failed: {e}", file=sys.stderr)
            return 1
        out.write(f"status {r.status}\n")
        out.flush()
        while True:
            line = r.readline()
            if not line:
                break
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text.startswith("data:"):
                out.write(text[5:].strip() + "\n")
            elif text.startswith(":"):
                out.write("comment\n")
            else:
                continue
            out.flush()
        out.write("end\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
