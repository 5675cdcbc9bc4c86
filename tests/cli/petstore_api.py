#!/usr/bin/env python3
"""A stand-in of the Swagger Petstore on loopback for tests/cli/init_openapi.sh.

Usage: petstore_api.py PORTFILE LOGFILE
Writes the port it listens on to PORTFILE and one line per request to LOGFILE:
"METHOD PATH?QUERY|Authorization|X-Request-ID|body".
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PETS = [{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 2, "name": "Tom", "tag": None},
        {"id": 3, "name": "Bob", "tag": "dog"}]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, value=None):
        body = b"" if value is None else json.dumps(value).encode()
        self.send_response(status)
        if value is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        with open(sys.argv[2], "a") as log:
            log.write("%s %s|%s|%s|%s\n" % (self.command, self.path,
                                            self.headers.get("Authorization", ""),
                                            self.headers.get("X-Request-ID", ""), body))
        url = urlsplit(self.path)
        q = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        if parts[:2] != ["v1", "pets"] and parts[:2] != ["v1", "search"]:
            return self.answer(404, {"code": 404, "message": "no such route"})
        if parts[1] == "search":
            return self.answer(200, [p for p in PETS if p["tag"] == q.get("tag", [""])[0]])
        if len(parts) == 2 and self.command == "GET":
            return self.answer(200, PETS[: int(q.get("limit", ["100"])[0])])
        if len(parts) == 2 and self.command == "POST":
            pet = json.loads(body)
            return self.answer(201, {"id": 4, "name": pet["name"], "tag": pet.get("tag")})
        pet = [p for p in PETS if str(p["id"]) == parts[2]]
        if not pet:
            return self.answer(404, {"code": 404, "message": "no pet " + parts[2]})
        return self.answer(204) if self.command == "DELETE" else self.answer(200, pet[0])

    do_GET = do_POST = do_DELETE = do_PUT = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402  (the port file appears whole)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
