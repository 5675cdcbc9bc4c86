"""Asks the client's model to answer the prompt it is given."""

from toolgen_helpers import sample


def run(prompt: str) -> dict:
    answer = sample([prompt], max_tokens=100)
    return {"text": f"LLM response: {answer['content'].get('text', 'No response')}"}
