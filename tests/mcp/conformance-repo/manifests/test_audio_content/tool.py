"""Writes the conformance suite's reference WAV file (a header and one silent sample)."""

import base64

TONE = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="


def run() -> dict:
    with open("tone.wav", "wb") as f:
        f.write(base64.b64decode(TONE))
    return {"files": ["tone.wav"]}
