// expect: Timeout
// args: {"timeout": 1}
await new Promise((resolve) => setTimeout(resolve, 60000));
