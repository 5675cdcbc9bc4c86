// expect: success
require('fs').writeFileSync('errors.txt', 'ENOENT: no such file\n');
console.log('Segmentation fault');
