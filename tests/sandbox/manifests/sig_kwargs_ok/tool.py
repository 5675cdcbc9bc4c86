def run(a: str, **kwargs) -> dict:
    return {"a": a, "others": sorted(kwargs)}
