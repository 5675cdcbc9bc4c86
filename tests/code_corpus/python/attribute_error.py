# expect: AttributeError
items = [3, 1, 2]
items.push(4)
