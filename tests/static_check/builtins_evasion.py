import builtins


def run() -> dict:
    builtins.eval("1 + 1")
    __builtins__["exec"]("x = 1")
    __builtins__.compile("1", "<s>", "eval")
    return {}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 forbidden-module
# expect: finding 5:5 forbidden-call
# expect: finding 6:5 dunder-access
# expect: finding 6:5 forbidden-call
# expect: finding 7:5 dunder-access
# expect: finding 7:5 forbidden-call
