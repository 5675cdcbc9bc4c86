def run(expr: str) -> dict:
    """Direct calls of the forbidden builtins, and references that hand them around."""
    value = eval(expr)
    exec("x = 1")
    code = compile(expr, "<tool>", "eval")
    breakpoint()
    names = globals()
    shortcut = eval  # not called here, but handed around just as well
    results = list(map(exec, [expr]))
    return {"value": value, "code": str(code), "names": len(names), "s": shortcut, "r": results}

# The static check must report exactly these (kind line:col rule):
# expect: finding 3:13 forbidden-call
# expect: finding 4:5 forbidden-call
# expect: finding 5:12 forbidden-call
# expect: finding 6:5 forbidden-call
# expect: finding 7:13 forbidden-call
# expect: finding 8:16 forbidden-call
# expect: finding 9:24 forbidden-call
