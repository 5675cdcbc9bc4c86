# expect: NameError
print(math.sqrt(16))
