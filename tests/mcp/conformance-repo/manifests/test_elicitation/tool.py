"""Asks the user for a user name and an email address, with the message it is given."""

import json

from toolgen_helpers import ask, form


def run(message: str) -> dict:
    answer = ask({"user": form(message, {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}})})["user"]
    return {"text": f"User response: action=accept, content={json.dumps(answer)}"}
