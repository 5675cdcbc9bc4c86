"""Asks three questions at once: the user's name, a greeting from the model, the roots."""

from toolgen_helpers import ask, form, roots_list, sampling


def run() -> dict:
    a = ask({"user_name": form("What is your name?", {"name": {"type": "string"}}),
             "greeting": sampling(["Generate a greeting"], max_tokens=50),
             "client_roots": roots_list()})
    greeting = a["greeting"]["content"].get("text", "Hello there!")
    return {"text": f"Name: {a['user_name']['name']}; Greeting: {greeting}; "
                    f"Roots: {len(a['client_roots'])}"}
