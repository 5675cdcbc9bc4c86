// expect: SyntaxError
function f() {
  return 1;
