def run(a: str, b: int = 1, c: str = None) -> dict:
    return {"a": a


def other():
    pass
