# expect: ImportError
from math import square_root
