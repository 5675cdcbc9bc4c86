"""Asks the user to confirm the deletion of a file; deletes nothing."""

from toolgen_helpers import ask, form


def run(filename: str) -> dict:
    answer = ask({"confirm": form(f"Delete {filename}?", {
        "confirm": {"type": "boolean", "description": "Delete the file"}})})["confirm"]
    verb = "Would delete" if answer.get("confirm") else "Kept"
    return {"text": f"{verb} {filename}"}
