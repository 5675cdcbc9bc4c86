// expect: TypeError
const user = undefined;
console.log(user.name);
