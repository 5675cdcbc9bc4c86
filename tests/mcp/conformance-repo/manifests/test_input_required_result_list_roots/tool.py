"""Counts the client's roots."""

from toolgen_helpers import ask, roots_list


def run() -> dict:
    roots = ask({"roots_request": roots_list()})["roots_request"]
    return {"text": f"Found {len(roots)} root(s)"}
