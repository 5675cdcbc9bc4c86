def run() -> dict:
    classes = ().__class__.__bases__[0].__subclasses__()
    scope = run.__globals__
    return {"n": len(classes), "m": len(scope)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 2:18 dunder-access
# expect: finding 2:28 dunder-access
# expect: finding 2:41 dunder-access
# expect: finding 3:17 dunder-access
