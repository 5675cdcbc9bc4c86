"""Writes a one-pixel red PNG (the image of the conformance suite's reference server)."""

import base64

PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJ"
         "RU5ErkJggg==")


def run() -> dict:
    with open("pixel.png", "wb") as f:
        f.write(base64.b64decode(PIXEL))
    return {"file": "pixel.png"}
