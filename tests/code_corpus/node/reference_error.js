// expect: ReferenceError
const total = 1;
console.log(totl);
