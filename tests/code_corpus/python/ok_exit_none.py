# expect: success
import sys
print('exit code 1 expected?')
sys.exit()
