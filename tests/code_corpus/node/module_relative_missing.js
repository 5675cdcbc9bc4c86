// expect: MODULE_NOT_FOUND
const helper = require('./helper');
