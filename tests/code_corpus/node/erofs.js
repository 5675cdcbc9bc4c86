// expect: EROFS
require('fs').writeFileSync('/usr/out.json', '{}');
