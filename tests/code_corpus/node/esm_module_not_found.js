// expect: ERR_MODULE_NOT_FOUND
import axios from 'axios';
console.log(axios);
