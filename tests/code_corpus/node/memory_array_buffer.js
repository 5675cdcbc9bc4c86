// expect: MemoryError
const b = new ArrayBuffer(16 * 1024 ** 3);
