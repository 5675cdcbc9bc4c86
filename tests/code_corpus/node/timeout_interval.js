// expect: Timeout
// args: {"timeout": 1}
setInterval(() => {}, 100);
