"""Works for a second, then fails (a tool error, not a protocol error)."""

import time


def run() -> dict:
    time.sleep(1)
    raise RuntimeError("failing_job always fails")
