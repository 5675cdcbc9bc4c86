// expect: RangeError
const a = new Array(-1);
