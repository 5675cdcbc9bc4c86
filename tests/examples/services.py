"""Loopback stand-ins for the remote services of the example http tools.

An `http` example tool names a real service in its manifest (get_exchange_rate:
https://api.example.com, a documentation placeholder). Its examples and tests run against a
stand-in started here on 127.0.0.1 with an ephemeral port: toolgen is pointed at it with the
documented origin override TOOLGEN_HTTP_ORIGIN_<TOOL> (docs/manifest.md#http), and the tool's
credential variable (auth.env) is set to a token the stand-in checks, so a call without it is
refused as the real service would.

    svc = services.start(manifest)        # None when the tool is not http or has no stand-in
    env = dict(os.environ, **svc.env)      # the override and the token
    ...
    svc.stop()

    with services.running(manifest):       # the same, with svc.env in os.environ meanwhile
        ...

As a program, for the shell tests that start a server toolgen serve calls through (serve.sh,
serve_http.sh, serve_client2.sh):

    /usr/bin/python3 tests/examples/services.py ENVFILE [MANIFEST_DIR...]

starts the stand-ins of the http tools among the manifest folders (default: manifests/*),
writes their variables to ENVFILE as NAME=VALUE lines once they listen, and runs until its
parent process ends.
"""

import contextlib
import http.server
import json
import os
import threading
import urllib.parse

TOKEN = "test-token-not-a-secret"


class RatesHandler(http.server.BaseHTTPRequestHandler):
    """The exchange-rate API get_exchange_rate expects: GET /v1/rates/<BASE>?symbols=<TARGET>
    with a bearer token; {"data": {base, target, rate, date}}; 404 for an unknown currency."""

    RATES = {"USD": 1.0, "EUR": 1.0 / 0.9213, "JPY": 1.0 / 155.2, "GBP": 1.25}
    DATE = "2025-01-31"

    def do_GET(self):
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.answer(401, {"error": "invalid token"})
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.split("/")
        target = urllib.parse.parse_qs(url.query).get("symbols", [""])[0]
        if len(parts) != 4 or parts[:3] != ["", "v1", "rates"]:
            return self.answer(404, {"error": "no such route"})
        base = urllib.parse.unquote(parts[3])
        if base not in self.RATES or target not in self.RATES:
            return self.answer(404, {"error": "unknown currency"})
        rate = 1.0 if base == target else round(self.RATES[base] / self.RATES[target], 4)
        self.answer(200, {"data": {"base": base, "target": target, "rate": rate,
                                   "date": self.DATE}})

    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


HANDLERS = {"get_exchange_rate": RatesHandler}


class Service:
    def __init__(self, manifest, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.env = {"TOOLGEN_HTTP_ORIGIN_" + manifest["name"].upper(): self.origin}
        auth = manifest["implementation"].get("auth", {})
        if auth.get("env"):
            self.env[auth["env"]] = TOKEN

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def start(manifest):
    """The stand-in of manifest's service, started; None when there is none."""
    handler = HANDLERS.get(manifest["name"])
    if manifest["implementation"]["runtime"] != "http" or handler is None:
        return None
    return Service(manifest, handler)


@contextlib.contextmanager
def running(manifest):
    """manifest's stand-in (if any) running, its variables in os.environ until the block ends."""
    svc = start(manifest)
    saved = {k: os.environ.get(k) for k in (svc.env if svc else {})}
    if svc:
        os.environ.update(svc.env)
    try:
        yield svc
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if svc:
            svc.stop()


def main(argv):
    import glob
    import time
    import yaml
    envfile, dirs = argv[1], argv[2:] or sorted(glob.glob("manifests/*"))
    parent, env, running_ = os.getppid(), {}, []
    for d in dirs:
        path = os.path.join(d, "tool.manifest.yaml")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                svc = start(yaml.safe_load(f))
            if svc:
                running_.append(svc)
                env.update(svc.env)
    with open(envfile + ".tmp", "w") as f:
        f.writelines(f"{k}={v}\n" for k, v in sorted(env.items()))
    os.rename(envfile + ".tmp", envfile)
    while os.getppid() == parent:  # the test that started it is still there
        time.sleep(0.5)
    for svc in running_:
        svc.stop()


if __name__ == "__main__":
    import sys
    main(sys.argv)
