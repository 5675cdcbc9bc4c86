"""Always fails (the error the conformance suite expects to see as isError)."""


def run() -> dict:
    raise ValueError("This tool intentionally returns an error for testing")
