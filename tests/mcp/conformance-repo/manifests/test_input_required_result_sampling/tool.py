"""Asks the client's model a question."""

from toolgen_helpers import ask, sampling


def run() -> dict:
    answer = ask({"sample_request": sampling(["What is the capital of France?"],
                                             max_tokens=100)})["sample_request"]
    return {"text": f"Sampling result: {answer['content'].get('text', 'no response')}"}
