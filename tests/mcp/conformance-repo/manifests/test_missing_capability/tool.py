"""Needs the client's model: a client without sampling is refused with -32021."""

from toolgen_helpers import sample


def run() -> dict:
    answer = sample(["Say success"], max_tokens=10)
    return {"text": answer["content"].get("text", "Success")}
