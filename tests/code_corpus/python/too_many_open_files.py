# expect: TooManyOpenFiles
handles = [open('f%d.txt' % i, 'w') for i in range(1000)]
