// expect: Error
throw new Error('no rows to process');
