"""A loopback web server for tests/cli/web_fetch.sh (web_fetch, docs/web.md).

    python3 tests/cli/web_server.py PORTFILE

listens on 127.0.0.1 with an ephemeral port, writes the port to PORTFILE once it listens, and
serves until its parent ends (or it is killed):

    /text          plain UTF-8 text
    /data.json     a JSON document
    /bad.json      not JSON (an HTML page served as application/json)
    /page.html     an HTML page with a title, a script, a style, a list and links
    /data.csv      a small CSV (for type file)
    /big           2 MiB of text (over a 1 MB web.max_mb)
    /binary        bytes that are not UTF-8
    /missing       404
    /redirect-here 302 to /data.json on the same host and port
    /redirect-away 302 to http://localhost:PORT/data.json (the same server under another name)
    /redirect-loop 302 to itself
"""

import http.server
import os
import sys
import threading

PAGE = b"""<!DOCTYPE html>
<html><head><title>Fruit &amp; prices</title>
<style>body { color: red }</style>
<script>var secret = "not text";</script></head>
<body><h1>Prices</h1>
<p>Apples cost <b>3</b>&nbsp;euros.</p>
<ul><li>pears</li><li>plums</li></ul>
<p>See <a href="/data.json">the data</a> and <a href="https://example.org/more">more</a>.</p>
<noscript>enable scripts</noscript>
</body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    def send(self, status, ctype, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: web_fetch's size cap

    def do_GET(self):
        port = self.server.server_address[1]
        p = self.path
        if p == "/text":
            self.send(200, "text/plain; charset=utf-8", "héllo, web\n".encode())
        elif p == "/data.json":
            self.send(200, "application/json", b'{"rows": [1, 2, 3], "name": "demo"}')
        elif p == "/bad.json":
            self.send(200, "application/json", b"<html><body>Service unavailable</body></html>")
        elif p == "/page.html":
            self.send(200, "text/html; charset=utf-8", PAGE)
        elif p == "/data.csv":
            self.send(200, "text/csv", b"region,sales\nnorth,120\nsouth,95\n")
        elif p == "/big":
            self.send(200, "text/plain", b"x" * (2 << 20))
        elif p == "/binary":
            self.send(200, "application/octet-stream", bytes(range(256)))
        elif p == "/redirect-here":
            self.send(302, "text/plain", b"", [("Location", "/data.json")])
        elif p == "/redirect-away":
            self.send(302, "text/plain", b"",
                      [("Location", "http://localhost:%d/data.json" % port)])
        elif p == "/redirect-loop":
            self.send(302, "text/plain", b"", [("Location", "/redirect-loop")])
        else:
            self.send(404, "text/plain", b"no such page")

    def log_message(self, *args):
        pass


def main():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, sys.argv[1])
    parent = os.getppid()

    def watch():  # end with the test that started us
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
