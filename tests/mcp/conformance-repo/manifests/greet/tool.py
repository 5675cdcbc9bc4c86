"""Greets someone by name."""


def run(name: str) -> dict:
    greeting = f"Hello, {name}!"
    return {"text": greeting, "summary_markdown": greeting}
