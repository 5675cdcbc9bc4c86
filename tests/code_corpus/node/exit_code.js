// expect: NonZeroExit
console.error('usage: no input');
process.exit(2);
