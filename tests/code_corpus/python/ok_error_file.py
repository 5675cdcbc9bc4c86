# expect: success
open('errors.log', 'w').write('TypeError at line 3\nNameError: x\n')
print('wrote errors.log')
