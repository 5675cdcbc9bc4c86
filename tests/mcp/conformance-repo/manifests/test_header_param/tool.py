"""Echoes the region it was given."""


def run(region: str) -> dict:
    return {"text": f"region: {region}"}
