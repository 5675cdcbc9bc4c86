# expect: IsADirectoryError
open('.').read()
