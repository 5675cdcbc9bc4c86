// expect: TypeError
const n = 5;
n();
