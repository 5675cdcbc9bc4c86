// expect: MemoryError
const rows = [];
while (true) rows.push(new Array(1e6).fill(7));
