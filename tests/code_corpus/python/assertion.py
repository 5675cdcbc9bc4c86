# expect: AssertionError
total = 3
assert total == 4, 'totals differ'
