"""Asks the user's name, then greets them (as a task: task.ask_first)."""

from toolgen_helpers import ask, form


def run() -> dict:
    answer = ask({"user_name": form("What is your name?", {
        "name": {"type": "string", "description": "Your name"}})})["user_name"]
    return {"text": f"Hello, {answer.get('name')}!"}
