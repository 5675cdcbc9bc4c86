'use strict';
function run({ a, b = 1, extra }) {
  return { a };
}
module.exports = { run };
