#!/usr/bin/env python3
"""Writes a fake_llm.py script: script.py OUT [kind=answer-spec]...

An answer spec is a comma-separated list of answers for that kind: good, bad (the code files
here, fenced), spec, intent, nocode (prose without a block), truncated, malformed, refusal,
500, 429 (Retry-After 1), slow (sleeps past the timeout), drop, echo (a 400 quoting the key),
primary_down (the intent, but 503 for the model fake-model). Kinds not given get the happy
path: intent, spec, good code, good repair."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read(name):
    with open(os.path.join(HERE, name)) as f:
        return f.read()


def fenced(lang, text):
    return {"text": f"Here it is.\n\n```{lang}\n{text}```\n"}


ANSWERS = {
    "good": lambda: fenced("python", read("good.py")),
    "bad": lambda: fenced("python", read("bad.py")),
    "spec": lambda: fenced("yaml", read("spec.yaml")),
    "intent": lambda: fenced("json", read("intent.json")),
    "intent_count": lambda: fenced("json", read("intent_count.json")),
    "intent_filtered": lambda: fenced("json", read("intent_filtered.json")),
    "intent_unclear": lambda: fenced("json", read("intent_unclear.json")),
    "intent_columns_only": lambda: fenced("json", read("intent_columns_only.json")),
    "nocode": lambda: {"text": "I would compute the mean of tip grouped by day."},
    "truncated": lambda: {"truncated": True, "text": "```python\nimport pandas"},
    "malformed": lambda: {"raw": "{\"choices\": [ {\"message\": "},
    "refusal": lambda: {"refusal": "I cannot help with that."},
    "500": lambda: {"status": 500},
    "429": lambda: {"status": 429, "retry_after": "1"},
    "slow": lambda: dict(fenced("json", read("intent.json")), sleep=4),
    "drop": lambda: {"drop": True},
    "echo": lambda: {"status": 400, "echo_auth": True},
    "primary_down": lambda: dict(fenced("json", read("intent.json")), fail_model="fake-model"),
}
script = {"intent": [ANSWERS["intent"]()], "spec": [ANSWERS["spec"]()],
          "code": [ANSWERS["good"]()], "repair": [ANSWERS["good"]()]}
for arg in sys.argv[2:]:
    kind, spec = arg.split("=", 1)
    script[kind] = [ANSWERS[a]() for a in spec.split(",")]
with open(sys.argv[1], "w") as f:
    json.dump(script, f)
