// expect: ReferenceError
// rows came from a previous call
console.log(rows.length);
