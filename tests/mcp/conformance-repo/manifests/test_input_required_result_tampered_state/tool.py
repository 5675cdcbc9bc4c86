"""Asks the user to confirm."""

from toolgen_helpers import ask, form


def run() -> dict:
    ok = ask({"confirm": form("Please confirm", {"ok": {"type": "boolean"}})})["confirm"]["ok"]
    return {"text": "state-ok: confirmed" if ok is True else "not confirmed"}
