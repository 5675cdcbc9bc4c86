# expect: NonZeroExit
import sys
if True:
    sys.exit(2)
