# expect: IndexError
rows = [1, 2, 3]
print(rows[3])
