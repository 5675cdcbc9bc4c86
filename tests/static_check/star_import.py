from os import *
from math import *


def run() -> dict:
    system("id")  # os.system, brought in by the star import
    return {"root": sqrt(2)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 import-not-allowed
# expect: finding 6:5 forbidden-call
