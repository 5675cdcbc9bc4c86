# expect: success
import sys
print('Error: MemoryError Timeout Killed', file=sys.stderr)
