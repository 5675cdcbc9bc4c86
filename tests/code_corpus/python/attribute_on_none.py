# expect: AttributeError
import re
m = re.match(r'\d+', 'abc')
print(m.group(0))
