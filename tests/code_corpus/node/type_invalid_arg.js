// expect: TypeError
require('fs').readFileSync(42.5);
