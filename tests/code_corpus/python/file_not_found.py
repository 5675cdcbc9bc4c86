# expect: FileNotFoundError
with open('data/sales.csv') as f:
    print(f.read())
