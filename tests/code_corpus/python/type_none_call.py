# expect: TypeError
handler = None
handler('x')
