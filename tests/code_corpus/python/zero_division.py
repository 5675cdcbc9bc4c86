# expect: ZeroDivisionError
values = []
print(sum(values) / len(values))
