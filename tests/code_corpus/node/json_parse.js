// expect: SyntaxError
const data = JSON.parse('<html></html>');
