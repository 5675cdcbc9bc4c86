// expect: success
console.warn('ReferenceError: x is not defined');
console.warn('Killed');
