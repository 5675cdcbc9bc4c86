// expect: ENOENT
const fs = require('fs');
console.log(fs.readFileSync('data.csv', 'utf8'));
