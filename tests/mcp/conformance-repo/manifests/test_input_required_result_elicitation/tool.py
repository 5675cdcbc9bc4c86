"""Asks the user's name and greets them."""

from toolgen_helpers import ask, form


def run() -> dict:
    name = ask({"user_name": form("What is your name?", {"name": {"type": "string"}})})["user_name"]["name"]
    return {"text": f"Hello, {name}!"}
