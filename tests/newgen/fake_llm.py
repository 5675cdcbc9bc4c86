#!/usr/bin/env python3
"""A fake LLM provider for tests/cli/new_llm.sh: OpenAI-compatible /v1/chat/completions and
Anthropic /v1/messages on loopback, answering from a script and recording every request.

usage: fake_llm.py SCRIPT.json LOG.jsonl PORTFILE

SCRIPT maps a prompt kind (intent, spec, code, repair, snippet, refactor, snippet_repair; found
by the "Task:" line of the user message) to a list of answers, used in order (the last one repeats). An answer is an object:
  {"text": "..."}                         200 with the text as the model's answer
  {"status": 429, "retry_after": "1"}    that status (a Retry-After header when given)
  {"raw": "..."}                          200 with exactly this body (malformed JSON)
  {"truncated": true, "text": "..."}      finish_reason length / stop_reason max_tokens
  {"refusal": "..."}                      an OpenAI refusal
  {"sleep": 3, ...}                       waits first (timeouts)
  {"wait_file": "PATH", ...}              waits first until PATH exists (at most 10 minutes):
                                          a test holds the answer while it checks something
  {"drop": true}                          closes the connection without an answer
  {"status": 400, "echo_auth": true}      an error body quoting the Authorization header
  {"fail_model": "m", "text": ...}        503 when the request names model m, else the text
The script file is re-read on every request, so a test may change it between commands.
Every request is appended to LOG as one JSON line: path, headers, body, kind, time.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT, LOG, PORTFILE = sys.argv[1:4]
counts = {}
lock = threading.Lock()

KINDS = [("Task: repair the snippet", "snippet_repair"),
         ("Task: generate a code snippet", "snippet"), ("Task: refactor a code snippet", "refactor"),
         ("Task: extract the intent", "intent"), ("Task: write the tool specification", "spec"),
         ("Task: implement the tool", "code"), ("Task: repair", "repair")]


def kind_of(body):
    text = json.dumps(body)
    for marker, kind in KINDS:
        if marker in text:
            return kind
    return "other"


def wrap(path, answer):
    text = answer.get("text", "")
    if path.endswith("/messages"):
        stop = "max_tokens" if answer.get("truncated") else "end_turn"
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "fake",
                "content": [{"type": "text", "text": text}], "stop_reason": stop,
                "usage": {"input_tokens": 100, "output_tokens": 20}}
    msg = {"role": "assistant", "content": text}
    if "refusal" in answer:
        msg = {"role": "assistant", "content": None, "refusal": answer["refusal"]}
    finish = "length" if answer.get("truncated") else "stop"
    return {"id": "c1", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        kind = kind_of(body)
        with lock:
            with open(LOG, "a") as f:
                f.write(json.dumps({"path": self.path, "headers": dict(self.headers),
                                    "body": body, "kind": kind, "time": time.time()}) + "\n")
            with open(SCRIPT) as f:
                answers = json.load(f).get(kind, [{"status": 500, "raw": "no script"}])
            i = counts.get(kind, 0)
            counts[kind] = i + 1
            answer = answers[min(i, len(answers) - 1)]
        if answer.get("fail_model") == body.get("model"):
            answer = {"status": 503}  # this model is down; others answer as scripted
        if answer.get("sleep"):
            time.sleep(answer["sleep"])
        if answer.get("wait_file"):
            end = time.time() + 600
            while not os.path.exists(answer["wait_file"]) and time.time() < end:
                time.sleep(0.05)
        if answer.get("drop"):
            self.close_connection = True
            self.connection.shutdown(2)
            return
        status = answer.get("status", 200)
        if answer.get("echo_auth"):  # a careless server quoting the request's headers
            data = json.dumps({"error": "rejected " + self.headers.get("Authorization", "")}).encode()
        elif "raw" in answer:
            data = answer["raw"].encode()
        elif status != 200:
            data = json.dumps({"error": {"message": "scripted error", "type": "server"}}).encode()
        else:
            data = json.dumps(wrap(self.path, answer)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if "retry_after" in answer:
            self.send_header("Retry-After", answer["retry_after"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
