// expect: Timeout
// args: {"timeout": 1}
let i = 0;
while (true) i++;
