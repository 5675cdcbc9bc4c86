def run(a: str, b: int = 1, c: str = None, d: int = 2) -> dict:
    return {"a": a}
