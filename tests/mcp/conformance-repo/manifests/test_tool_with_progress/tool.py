"""Waits long enough for progress notifications to be sent."""

import time


def run() -> dict:
    time.sleep(1.2)
    return {"text": "done"}
