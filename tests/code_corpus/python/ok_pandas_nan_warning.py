# expect: success
import pandas as pd, numpy as np
s = pd.Series([1, np.nan])
print('NaN count:', s.isna().sum(), '(error rate 50%)')
