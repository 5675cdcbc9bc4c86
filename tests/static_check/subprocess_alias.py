import subprocess as sp
from subprocess import run as r
from subprocess import *


def run() -> dict:
    sp.run(["id"])
    r(["id"])
    Popen(["id"])
    return {}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 forbidden-module
# expect: finding 2:1 forbidden-module
# expect: finding 3:1 forbidden-module
