"""Writes a one-pixel PNG and a small JSON file: the result holds text, an image and an
embedded resource."""

import base64
import json

PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJ"
         "RU5ErkJggg==")


def run() -> dict:
    with open("pixel.png", "wb") as f:
        f.write(base64.b64decode(PIXEL))
    with open("data.json", "w", encoding="utf-8") as f:
        json.dump({"test": "data", "value": 123}, f)
    return {"files": ["pixel.png", "data.json"]}
