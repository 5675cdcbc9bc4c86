// expect: MemoryError
let s = 'x';
while (true) s += s;
