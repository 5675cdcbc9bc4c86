# expect: ValueError
print(int('3.5 apples'))
