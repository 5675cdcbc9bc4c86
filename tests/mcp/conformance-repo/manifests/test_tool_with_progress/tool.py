"""Reports its own progress: 0, 50 and 100 of 100, 50 ms apart."""

import time

from toolgen_helpers import progress


def run() -> dict:
    for step in (0, 50, 100):
        progress(step, 100, f"Completed step {step} of 100")
        time.sleep(0.05)
    return {"text": "done"}
