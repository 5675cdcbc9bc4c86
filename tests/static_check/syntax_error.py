def run(x: str) -> dict:
    value = )
    return {"value": value}

# The static check must report exactly these (kind line:col rule):
# expect: finding 2:13 syntax-error
