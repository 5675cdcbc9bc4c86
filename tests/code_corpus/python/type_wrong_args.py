# expect: TypeError
def area(w, h):
    return w * h
print(area(3))
