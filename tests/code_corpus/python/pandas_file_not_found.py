# expect: FileNotFoundError
import pandas as pd
df = pd.read_csv('input.csv')
