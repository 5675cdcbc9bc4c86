"""Reads the file it is given: the first line and the size."""

import os


def run(file_path: str) -> dict:
    with open(file_path, encoding="utf-8") as f:
        first = f.readline().rstrip("\n")
    return {"file_path": file_path, "first_line": first, "size": os.path.getsize(file_path)}
