def run(a: str, b: int = 1) -> dict:
    return {"a": a}
