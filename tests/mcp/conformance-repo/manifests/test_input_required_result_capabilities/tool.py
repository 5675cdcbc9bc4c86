"""Asks what the client can answer: a form if it elicits, the model if it samples."""

from toolgen_helpers import ask, client_can, form, sampling


def run() -> dict:
    questions = {}
    if client_can("elicitation"):
        questions["elicit_input"] = form("Elicitation input", {"value": {"type": "string"}})
    if client_can("sampling"):
        questions["sample_input"] = sampling(["Sample request"], max_tokens=50)
    if not questions:
        return {"text": "No supported capabilities declared"}
    answers = ask(questions)
    return {"text": f"capabilities-ok: received {','.join(sorted(answers))}"}
