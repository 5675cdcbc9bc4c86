# expect: success
import warnings
warnings.warn('DeprecationWarning: this will fail')
print('done')
