# expect: TypeError
age = input_age = '42'
print(age + 1)
