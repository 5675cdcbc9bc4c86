def run() -> dict:
    __import__("os").system("id")
    mod = __import__("subprocess")
    return {"mod": str(mod)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 2:5 forbidden-call
# expect: finding 2:5 forbidden-call
# expect: finding 3:11 forbidden-call
