// expect: TypeError
setTimeout(() => { null.length; }, 10);
