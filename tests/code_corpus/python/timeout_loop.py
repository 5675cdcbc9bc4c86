# expect: Timeout
# args: {"timeout": 1}
n = 0
while True:
    n += 1
