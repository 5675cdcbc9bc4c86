# expect: success
try:
    {}['x']
except KeyError as e:
    print('KeyError handled:', e)
