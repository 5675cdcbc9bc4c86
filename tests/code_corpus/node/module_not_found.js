// expect: MODULE_NOT_FOUND
const _ = require('lodash');
console.log(_.sum([1, 2]));
