// expect: EISDIR
require('fs').readFileSync('.');
