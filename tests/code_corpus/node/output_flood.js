// expect: OutputLimitExceeded
while (true) console.log('row '.repeat(50));
