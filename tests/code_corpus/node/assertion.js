// expect: AssertionError
const assert = require('assert');
assert.strictEqual(1 + 1, 3);
