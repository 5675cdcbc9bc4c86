# expect: RuntimeError
raise RuntimeError('the model did not converge')
