# expect: Timeout
# args: {"timeout": 1}
import time
time.sleep(30)
