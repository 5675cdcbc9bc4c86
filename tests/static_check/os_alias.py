import os as o
from os import system as s


def run() -> dict:
    o.system("id")
    o.popen("id").read()
    s("id")
    return {"cwd": o.getcwd()}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 import-not-allowed
# expect: finding 2:1 forbidden-call
# expect: finding 2:1 import-not-allowed
# expect: finding 6:5 forbidden-call
# expect: finding 7:5 forbidden-call
# expect: finding 8:5 forbidden-call
