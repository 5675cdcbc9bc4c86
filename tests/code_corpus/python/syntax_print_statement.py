# expect: SyntaxError
print 'hello'
