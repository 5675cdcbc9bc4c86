# expect: NameError
# df was defined by a previous call
print(df.head())
