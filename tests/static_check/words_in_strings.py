"""Forbidden words in docstrings, strings and comments are not code: eval(x), exec(y),
import subprocess, os.system("rm -rf /"), __import__("os"), socket.socket().
"""
# eval(input())  import subprocess  os.system("id")  pickle.loads(data)


def run(text: str) -> dict:
    message = "never call eval() or exec() or subprocess.run()"
    query = 'SELECT * FROM t WHERE x = "os.system"'
    keys = {"eval": 1, "exec": 2, "__import__": 3, "compile": 4}
    note = f"requests.get and urllib are blocked by the {'sandbox'}"
    socket_count = len(text)  # a variable named like a module
    return {"message": message, "query": query, "keys": keys, "note": note, "n": socket_count}


class Runner:
    def exec(self, query):  # a method called exec is fine
        return query

    def compile(self):
        return self.exec("x")

# The static check must report nothing for this file.
