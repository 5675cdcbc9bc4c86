# expect: OutputLimitExceeded
import sys
while True:
    sys.stderr.write('warning ' * 50 + '\n')
