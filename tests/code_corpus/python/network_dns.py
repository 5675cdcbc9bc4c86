# expect: NetworkBlocked
import urllib.request
urllib.request.urlopen('https://example.com/data.json')
