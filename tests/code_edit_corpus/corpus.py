#!/usr/bin/env python3
"""Replays the code-edit corpus (README.md) through the code-edit toolset's tools.

usage: corpus.py TOOLGEN WORKDIR [--tsv | --table]

1. record: a repository in WORKDIR/repo whose llm section points at a loopback server that
   answers each task's requests with its recorded answers (the first request with `first`,
   the repair request with `repair`); toolgen caches every answer as it comes (llm.cache_dir).
2. replay, the step that is measured: the same repository with llm.provider replay and no
   server at all; every answer comes from the cache the recording wrote.

Why record at each run rather than commit the cache: a repair request quotes the checker's
message, which is the installed compiler's own words, so its cache key is this machine's.

--tsv prints one line per task (tests/cli/code_edit_corpus.sh asserts on them):
  id  status  rounds  verified  expected_status  expected_rounds  false_verified  same_as_recorded
--table prints the table of docs/code-edit.md ("Measured: the corpus").
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = {"generate": os.path.join(ROOT, "toolsets/code-edit/manifests/generate_code_snippet"),
         "refactor": os.path.join(ROOT, "toolsets/code-edit/manifests/refactor_code_snippet")}
LANGS = ["python", "javascript", "c", "shell"]
MODEL = "corpus-model"


def load():
    tasks = []
    for lang in LANGS:
        with open(os.path.join(HERE, lang + ".yaml"), encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        assert doc["language"] == lang, lang
        for t in doc["tasks"]:
            t["language"] = lang
            assert t["tool"] in TOOLS, t["id"]
            assert t["first"]["well_formed"] or "repair" in t, t["id"] + ": a repair answer"
            tasks.append(t)
    ids = [t["id"] for t in tasks]
    assert len(ids) == len(set(ids)), "duplicate task ids"
    return tasks


class Recorder(BaseHTTPRequestHandler):
    """The model while recording: the current task's answers, an OpenAI chat completion."""
    task = None
    asked = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        user = body["messages"][-1]["content"]
        t = Recorder.task
        kind = "repair" if "Task: repair the snippet" in user else "first"
        Recorder.asked.append((t["id"], kind))
        answer = t.get(kind, {"text": "(no recorded answer)"})["text"]
        data = json.dumps({"id": "c1", "object": "chat.completion", "model": MODEL,
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": answer}}],
                           "usage": {"prompt_tokens": 0, "completion_tokens": 0,
                                     "total_tokens": 0}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def write_config(repo, llm):
    with open(os.path.join(repo, "toolgen.yaml"), "w", encoding="utf-8") as f:
        f.write("config_version: 1\nllm:\n" + "".join("  %s: %s\n" % kv for kv in llm))


def call(tg, repo, t):
    args = dict(t["request"], language=t["language"])
    p = subprocess.run([tg, "-C", repo, "run", TOOLS[t["tool"]], "--input", json.dumps(args),
                        "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s: toolgen run exited %d: %s" % (t["id"], p.returncode,
                                                            (p.stderr or p.stdout)[:2000]))
    return json.loads(p.stdout)["result"]


def measure(tg, work):
    tasks = load()
    repo = os.path.join(work, "repo")
    shutil.rmtree(repo, ignore_errors=True)  # the cache is this run's recording, nothing older
    os.makedirs(os.path.join(repo, "manifests"), exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    write_config(repo, [("provider", "openai"), ("model", MODEL), ("max_retries", 0),
                        ("base_url", "http://127.0.0.1:%d/v1" % server.server_address[1])])
    recorded = {}
    for t in tasks:
        Recorder.task = t
        recorded[t["id"]] = call(tg, repo, t)
    server.shutdown()
    server.server_close()
    # the replay: no server, every answer from the cache
    write_config(repo, [("provider", "replay"), ("replay_of", "openai"), ("model", MODEL)])
    rows = []
    t0 = time.monotonic()
    for t in tasks:
        r = call(tg, repo, t)
        v = r["verification"]
        rounds = v["rounds"]
        ok = r["status"] != "failure" and v["verified"] is True
        final = t["first"] if rounds <= 1 else t.get("repair", {})
        rec = recorded[t["id"]]
        code = r.get("generated_code", r.get("refactored_code"))
        rec_code = rec.get("generated_code", rec.get("refactored_code"))
        rows.append({
            "id": t["id"], "language": t["language"], "tool": t["tool"],
            "status": r["status"], "rounds": rounds, "verified": v["verified"],
            "error": r["error_message"],
            "expected_status": t["expect"]["status"], "expected_rounds": t["expect"]["rounds"],
            # the checker's verdict on the first answer: it passed when no repair was asked
            "first_well_formed": ok and rounds == 1,
            "final_well_formed": ok,
            "first_label": t["first"]["well_formed"],
            "repair_label": t["repair"]["well_formed"] if rounds > 1 else None,
            "false_verified": v["verified"] is True and not final.get("well_formed", False),
            "same_as_recorded": (rec["status"], rec["verification"]["rounds"], rec_code)
                                == (r["status"], rounds, code),
        })
    return rows, time.monotonic() - t0, len(Recorder.asked)


def pct(n, d):
    return "%d/%d (%d%%)" % (n, d, round(100.0 * n / d)) if d else "-"


def table(rows, seconds, asked):
    out = ["| language | tasks | well-formed, first answer | well-formed after verification "
           "and repair | answers asked (rounds) | repaired / repairs asked | false "
           "\"verified\" |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for lang in LANGS + ["total"]:
        rs = [r for r in rows if lang == "total" or r["language"] == lang]
        first = sum(r["first_well_formed"] for r in rs)
        final = sum(r["final_well_formed"] for r in rs)
        repairs = sum(r["rounds"] > 1 for r in rs)
        repaired = sum(r["rounds"] > 1 and r["final_well_formed"] for r in rs)
        b = "**" if lang == "total" else ""
        out.append("| %s%s%s | %d | %s | %s | %d | %d / %d | %d |" % (
            b, lang, b, len(rs), pct(first, len(rs)), pct(final, len(rs)),
            sum(r["rounds"] for r in rs), repaired, repairs,
            sum(r["false_verified"] for r in rs)))
    # the checker's verdicts against the corpus's labels: every first answer, and every repair
    # answer that was asked for (its verdict is the final one)
    verdicts = [(r["first_well_formed"] if r["rounds"] == 1 else False, r["first_label"])
                for r in rows]
    verdicts += [(r["final_well_formed"], r["repair_label"]) for r in rows if r["rounds"] > 1]
    agree = sum(v == label for v, label in verdicts)
    out.append("")
    out.append("The checker's verdict agreed with the corpus's label on %d of the %d answers "
               "judged (%d first answers, %d repairs); the replay of the %d tasks took %.1f s "
               "(%d answers recorded)." % (agree, len(verdicts), len(rows),
                                           len(verdicts) - len(rows), len(rows), seconds,
                                           asked))
    return "\n".join(out)


def main():
    tg, work = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else "--table"
    rows, seconds, asked = measure(os.path.abspath(tg), work)
    with open(os.path.join(work, "results.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2)
    if mode == "--tsv":
        for r in rows:
            print("\t".join(str(x).lower() if isinstance(x, bool) else str(x) for x in (
                r["id"], r["status"], r["rounds"], r["verified"], r["expected_status"],
                r["expected_rounds"], r["false_verified"], r["same_as_recorded"])))
    else:
        print(table(rows, seconds, asked))


if __name__ == "__main__":
    main()
