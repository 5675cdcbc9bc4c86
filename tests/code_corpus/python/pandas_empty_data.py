# expect: EmptyDataError
import pandas as pd
open('empty.csv', 'w').close()
pd.read_csv('empty.csv')
