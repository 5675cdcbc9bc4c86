"""Logs three messages at level info while it runs, 50 ms apart."""

import time

from toolgen_helpers import log


def run() -> dict:
    for i, text in enumerate(("Tool execution started", "Tool processing data",
                              "Tool execution completed")):
        if i:
            time.sleep(0.05)
        log("info", text)
    return {"text": "Tool with logging executed successfully"}
