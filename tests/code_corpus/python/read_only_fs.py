# expect: OSError
open('/usr/local/out.txt', 'w').write('x')
