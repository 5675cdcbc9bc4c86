"""Returns its arguments as JSON text."""

import json


def run(**args) -> dict:
    return {"text": json.dumps(args, sort_keys=True)}
