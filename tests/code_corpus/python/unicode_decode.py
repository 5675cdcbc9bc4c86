# expect: UnicodeDecodeError
print(b'\xff\xfe\xfa'.decode('utf-8'))
