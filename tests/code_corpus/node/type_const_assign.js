// expect: TypeError
const limit = 10;
limit = 20;
