"""A form whose fields of every primitive type carry defaults (SEP-1034)."""

import json

from toolgen_helpers import ask, form


def run() -> dict:
    answer = ask({"defaults": form("Please review and update the form fields with defaults", {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status",
                   "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    }, required=[])})["defaults"]
    return {"text": f"Elicitation completed: action=accept, content={json.dumps(answer)}"}
