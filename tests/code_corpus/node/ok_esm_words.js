// expect: success
import { EOL } from 'os';
process.stdout.write('ERR_MODULE_NOT_FOUND' + EOL);
