// expect: RangeError
console.log((1.5).toFixed(500));
