"""Asks the user's name, then (a second round) their favourite colour."""

from toolgen_helpers import ask, form


def run() -> dict:
    name = ask({"step1": form("Step 1: What is your name?",
                              {"name": {"type": "string"}})})["step1"]["name"]
    color = ask({"step2": form("Step 2: What is your favorite color?",
                               {"color": {"type": "string"}})})["step2"]["color"]
    return {"text": f"Multi-round complete for {name} who likes {color}"}
