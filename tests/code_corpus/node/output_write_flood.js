// expect: OutputLimitExceeded
const s = 'x'.repeat(65536);
while (true) process.stdout.write(s);
