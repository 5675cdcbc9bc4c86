# expect: NonZeroExit
import sys
sys.exit('no input rows')
