def run(a: str = "x", b: int = 1, c: str = None) -> dict:
    return {"a": a}
