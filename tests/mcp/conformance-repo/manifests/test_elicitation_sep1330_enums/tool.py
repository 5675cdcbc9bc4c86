"""A form with every kind of enum field (SEP-1330)."""

import json

from toolgen_helpers import ask, form

TITLED = [{"const": f"value{i}", "title": t}
          for i, t in ((1, "First Option"), (2, "Second Option"), (3, "Third Option"))]
CHOICES = [{"const": f"value{i}", "title": t}
           for i, t in ((1, "First Choice"), (2, "Second Choice"), (3, "Third Choice"))]


def run() -> dict:
    answer = ask({"enums": form("Please select options from the enum fields", {
        "untitledSingle": {"type": "string", "description": "Select one option",
                           "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Select one option with titles",
                         "oneOf": TITLED},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                       "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options",
                          "minItems": 1, "maxItems": 3,
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                        "minItems": 1, "maxItems": 3, "items": {"anyOf": CHOICES}},
    }, required=[])})["enums"]
    return {"text": f"Elicitation completed: action=accept, content={json.dumps(answer)}"}
