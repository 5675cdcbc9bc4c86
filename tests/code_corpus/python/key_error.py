# expect: KeyError
row = {'name': 'Ada', 'age': 36}
print(row['Name'])
