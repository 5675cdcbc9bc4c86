// expect: success
setTimeout(() => console.error('Timeout!'), 50);
