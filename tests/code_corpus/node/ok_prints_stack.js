// expect: success
console.log(new Error('FATAL ERROR: heap out of memory').stack);
