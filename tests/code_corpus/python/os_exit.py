# expect: NonZeroExit
import os
print('partial', flush=True)
os._exit(5)
