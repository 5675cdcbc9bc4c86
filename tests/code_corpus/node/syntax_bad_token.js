// expect: SyntaxError
const x = ;
