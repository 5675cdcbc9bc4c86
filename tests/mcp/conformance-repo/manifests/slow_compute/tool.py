"""Sleeps for the seconds it is given (a stand-in for long work)."""

import time


def run(seconds: int, label: str = "") -> dict:
    time.sleep(seconds)
    return {"text": f"Computed {label or 'result'} after {seconds} s"}
