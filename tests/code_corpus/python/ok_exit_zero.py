# expect: success
import sys
print('FAILED tests: 0')
sys.exit(0)
