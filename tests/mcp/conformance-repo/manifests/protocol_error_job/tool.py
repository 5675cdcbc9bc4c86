"""Asks for the client's roots: a client without the roots capability cannot be asked."""

from toolgen_helpers import ask, roots_list


def run() -> dict:
    roots = ask({"roots": roots_list()})["roots"]
    return {"text": f"Found {len(roots)} root(s)"}
