// expect: success
console.log('exit code 1');
process.exit(0);
