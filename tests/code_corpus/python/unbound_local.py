# expect: UnboundLocalError
count = 0
def bump():
    count += 1
bump()
