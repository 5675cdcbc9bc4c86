# expect: success
print('Traceback (most recent call last):')
print('  File "x.py", line 1')
print('ZeroDivisionError: division by zero')
