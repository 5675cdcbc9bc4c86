def run(expr: str) -> dict:
    text = f"eval({expr}) is only text here"
    value = f"{eval(expr)}"
    other = f"{expr!r:>{eval('5')}}"
    return {"text": text, "value": value, "other": other}

# The static check must report exactly these (kind line:col rule):
# expect: finding 3:16 forbidden-call
# expect: finding 4:25 forbidden-call
