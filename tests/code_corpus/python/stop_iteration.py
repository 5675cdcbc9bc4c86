# expect: StopIteration
it = iter([])
print(next(it))
