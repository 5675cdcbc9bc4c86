# expect: JSONDecodeError
import json
json.loads('<html>not json</html>')
