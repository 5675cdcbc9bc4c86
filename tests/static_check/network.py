import socket
import urllib.request
from http.client import HTTPConnection
import requests
import ctypes, json


def run(url: str) -> dict:
    return {"a": str(socket), "b": str(urllib.request), "c": str(HTTPConnection),
            "d": str(requests), "e": str(ctypes), "f": json.dumps(url)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 forbidden-module
# expect: finding 2:1 forbidden-module
# expect: finding 3:1 forbidden-module
# expect: finding 4:1 forbidden-module
# expect: finding 5:1 forbidden-module
