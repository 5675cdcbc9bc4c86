# expect: success
for i in range(2000):
    print('line', i, 'ERROR' if i % 7 == 0 else 'ok')
