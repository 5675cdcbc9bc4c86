# expect: MemoryError
import numpy as np
a = np.ones((60000, 60000))
