#!/usr/bin/python3
"""A scripted stand-in of get_exchange_rate's service for tests/cli/http_runtime.sh.

Usage: http_api.py PORTFILE LOG [REDIRECT_PORT]
Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE once it listens) and appends one
line per request to LOG: "METHOD TARGET | Authorization". GET /v1/rates/<BASE>?symbols=<T>
answers by BASE: NFD 404, UNA 401, FRB 403, RTL 429, ERR 500, HNG never (until the client
hangs up), RDR a 302 to 127.0.0.1:REDIRECT_PORT, ECH an answer that echoes the Authorization
header; any other a rate of 0.5.
"""
import http.server
import json
import sys
import time
import urllib.parse

PORTFILE, LOG = sys.argv[1], sys.argv[2]
REDIRECT = sys.argv[3] if len(sys.argv) > 3 else "1"
STATUS = {"NFD": 404, "UNA": 401, "FRB": 403, "RTL": 429, "ERR": 500}


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        auth = self.headers.get("Authorization", "")
        with open(LOG, "a") as f:
            f.write(f"{self.command} {self.path} | {auth}\n")
        url = urllib.parse.urlsplit(self.path)
        base = url.path.rsplit("/", 1)[-1]
        target = urllib.parse.parse_qs(url.query).get("symbols", ["?"])[0]
        if base == "HNG":
            time.sleep(60)
            return
        if base == "RDR":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{REDIRECT}/stolen")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if base in STATUS:
            return self.answer(STATUS[base], {"error": "scripted", "auth": auth})
        data = {"base": base, "target": target, "rate": 0.5, "date": "2025-01-31"}
        if base == "ECH":
            data = {"base": "USD", "target": "EUR", "rate": 0.5, "date": "2025-01-31",
                    "echo": auth}
        self.answer(200, {"data": data})

    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
