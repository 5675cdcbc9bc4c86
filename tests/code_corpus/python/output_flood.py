# expect: OutputLimitExceeded
while True:
    print('row ' * 50)
