// expect: SyntaxError
def f(x):
    return x
