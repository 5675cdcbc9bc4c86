# expect: Timeout
# args: {"timeout": 1}
import sys, time
sys.stdin.read()
time.sleep(30)
