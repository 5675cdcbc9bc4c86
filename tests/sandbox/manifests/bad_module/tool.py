import numpyy_typo  # noqa: F401


def run(a: str, b: int = 1, c: str = None) -> dict:
    return {"a": a}
