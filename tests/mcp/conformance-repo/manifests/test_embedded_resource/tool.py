"""Writes a small text file (serve embeds it in the result as a resource block)."""


def run() -> dict:
    with open("embedded.txt", "w", encoding="utf-8") as f:
        f.write("This is an embedded resource content.")
    return {"files": ["embedded.txt"]}
