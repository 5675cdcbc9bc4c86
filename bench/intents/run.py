#!/usr/bin/env python3
"""bench/intents — requests in analysts' own words against `toolgen new` (docs/benchmarks.md).

usage: run.py [--toolgen PATH] [--work DIR] [--dataset NAME]... [--markdown FILE] [--json FILE]

Every request of cases.py goes to `toolgen new REQUEST --data data/<dataset>.csv` (the built-in
generator, no model) in one scratch repository that starts with the repository's reusable
example tools (group_and_count_by_columns, bar_chart_by_group, csv_column_stats) and keeps what
each request generates, as a user's repository does, so later requests may reuse earlier tools.
The outcome of each request:

  solved    a tool was generated or reused, and its result on the file holds the answer pandas
            computed (answers.py)
  asked     toolgen asked one question (a --assume it offers), the option the analyst meant was
            given, and the tool then made holds the answer
  refused   toolgen said what it did not understand, and wrote nothing (for a request no tool
            here can answer, that is the right outcome)
  wrong     a tool was made, or reused, and its result does not hold the answer (or it answered a
            request that is out of scope)

Prints one line per request and the table by dataset; --markdown writes the table for
docs/benchmarks.md, --json every outcome. Exit status 1 when any answer is wrong. The datasets
are tests/testdata/datasets/ (see its README).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from answers import matches  # noqa: E402
from cases import CASES, OUT  # noqa: E402

DATASETS = os.path.join(ROOT, "tests", "testdata", "datasets")
REUSABLE = ["group_and_count_by_columns", "bar_chart_by_group", "csv_column_stats"]
ASSUME = re.compile(r"--assume '([^'=]+)=([^']*)'")


def make_repo(work):
    """A scratch repository: the datasets, the reusable example tools, the default config."""
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(os.path.join(work, "data"))
    os.makedirs(os.path.join(work, "manifests"))
    for f in os.listdir(DATASETS):
        if f.endswith(".csv"):
            shutil.copy(os.path.join(DATASETS, f), os.path.join(work, "data", f))
    for t in REUSABLE:
        shutil.copytree(os.path.join(ROOT, "manifests", t), os.path.join(work, "manifests", t))
    with open(os.path.join(work, "toolgen.yaml"), "w") as f:
        f.write("config_version: 1\n")
    subprocess.run(["chmod", "-R", "o+rX", work], check=True)


def toolgen(tg, repo, *args):
    return subprocess.run([tg, "-C", repo, *args], capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)


def the_call(out):
    """The tool and its arguments from `toolgen new`'s next line."""
    m = re.search(r"^next: toolgen run (\S+) --input '(.*)'$", out, re.M)
    if m:
        return m.group(1), m.group(2)
    m = re.search(r"^next: toolgen run (\S+) --arg file_path=(\S+)$", out, re.M)
    if m:
        return m.group(1), json.dumps({"file_path": m.group(2)})
    return None, None


def new(tg, repo, case, assume):
    args = ["new", case.request, "--data", f"data/{case.dataset}.csv"]
    for a in assume:
        args += ["--assume", a]
    return toolgen(tg, repo, *args)


def attempt(tg, repo, case):
    """(outcome, details, the reading)."""
    assume, asked = [], 0
    while True:
        p = new(tg, repo, case, assume)
        text = p.stdout + p.stderr
        reading = next((ln[len("reading: "):] for ln in p.stdout.splitlines()
                        if ln.startswith("reading: ")), "")
        offers = [(w, o) for w, o in ASSUME.findall(text) if o != "..."]  # not the hint's
        if p.returncode == 0:
            break
        if not offers:
            return "refused", text.strip().splitlines()[-1][:300] if text.strip() else "", reading
        if asked:
            return "refused", "a second question: " + text.strip()[:300], reading
        word = offers[0][0]
        choice = [o for w, o in offers if w == word and o in case.means]
        if len(choice) != 1:
            return "refused", f"asked about '{word}', options {[o for _, o in offers]}, " \
                              f"the analyst meant {case.means}", reading
        assume.append(f"{word}={choice[0]}")
        asked += 1
    tool, args = the_call(p.stdout)
    if not tool:
        return "wrong", "no call to run: " + p.stdout[-300:], reading
    r = toolgen(tg, repo, "run", tool, "--input", args, "--json")
    try:
        env = json.loads(r.stdout)
    except ValueError:
        return "wrong", f"{tool} did not run: {r.stderr[-300:]}", reading
    if not env.get("success"):
        return "wrong", f"{tool} failed: {json.dumps(env.get('error'))[:300]}", reading
    if case.answer == OUT:
        return "wrong", f"out of scope, yet {tool} answered", reading
    df = pd.read_csv(os.path.join(repo, "data", f"{case.dataset}.csv"))
    want = case.answer(df)
    ok, why = matches(env["result"], want, case.ordered, case.chart)
    if not ok:
        return "wrong", f"{tool} {args}: {why}; got {json.dumps(env['result'])[:400]}", reading
    return ("asked" if asked else "solved"), f"{tool} {args}", reading


def table(outcomes):
    kinds = ["solved", "asked", "refused", "wrong"]
    by = {}
    for o in outcomes:
        by.setdefault(o["dataset"], {k: 0 for k in kinds})[o["outcome"]] += 1
    total = {k: sum(v[k] for v in by.values()) for k in kinds}
    lines = ["| dataset | requests | solved | asked, then solved | refused | wrong |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in sorted(by):
        v = by[name]
        lines.append(f"| {name} | {sum(v.values())} | {v['solved']} | {v['asked']} | "
                     f"{v['refused']} | {v['wrong']} |")
    n = sum(total.values())
    lines.append(f"| **all** | **{n}** | **{total['solved']}** | **{total['asked']}** | "
                 f"**{total['refused']}** | **{total['wrong']}** |")
    share = 100.0 * (total["solved"] + total["asked"]) / n if n else 0
    lines.append("")
    lines.append(f"Solved or resolved by one question: {total['solved'] + total['asked']} of {n} "
                 f"({share:.1f} %); wrong: {total['wrong']}.")
    return "\n".join(lines), total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolgen", default=os.path.join(ROOT, "bin", "toolgen"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work", "intents"))
    ap.add_argument("--dataset", action="append")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    a = ap.parse_args()
    tg = os.path.abspath(a.toolgen)
    make_repo(a.work)
    outcomes = []
    for c in CASES:
        if a.dataset and c.dataset not in a.dataset:
            continue
        outcome, details, reading = attempt(tg, a.work, c)
        outcomes.append({"dataset": c.dataset, "request": c.request, "outcome": outcome,
                         "reading": reading, "details": details})
        print(f"{outcome:8} {c.dataset:12} {c.request!r}: {reading or details}", flush=True)
        if outcome == "wrong":
            print(f"         {details}", flush=True)
    text, total = table(outcomes)
    print()
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(outcomes, f, indent=1)
    return 1 if total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
