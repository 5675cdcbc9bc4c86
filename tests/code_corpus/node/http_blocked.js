// expect: NetworkBlocked
require('http').get('http://example.com/', (r) => r.resume());
