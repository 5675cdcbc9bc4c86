// expect: success
console.error('TypeError: this is only a message');
console.log('done');
