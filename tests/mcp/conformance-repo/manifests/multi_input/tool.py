"""Asks the user two questions at once."""

from toolgen_helpers import ask, form


def run() -> dict:
    fields = {"name": {"type": "string", "description": "A name"},
              "confirm": {"type": "boolean", "description": "Go on"}}
    a = ask({"first": form("First question", fields), "second": form("Second question", fields)})
    return {"text": f"first: {a['first'].get('name')}, second: {a['second'].get('name')}"}
