'use strict';
/** Fails in one chosen way per call (Node.js), so that each error class has a test. */
const fs = require('fs');

async function run({ kind, file_path }) {
  switch (kind) {
    case 'ok':
      return { kind };
    case 'print_oom_ok':
      console.log('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory');
      return { kind };
    case 'code_error': {
      const e = new Error('the record was changed by someone else');
      e.code = 'CONFLICT';
      throw e;
    }
    case 'enoent':
      fs.readFileSync('data/not_mounted.csv');
      break;
    case 'type_error':
      return { kind: null.x };
    case 'range_error':
      throw new RangeError('top_n must be positive');
    case 'process_exit':
      process.exit(2);
      break;
    case 'not_object':
      return 5;
    case 'rejected_later':
      setTimeout(() => { throw new Error('thrown from a timer'); }, 10);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return { kind };
    case 'heap_oom': {
      const hog = [];
      for (;;) hog.push(new Array(1 << 20).fill(hog.length));
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
  return { kind };
}

module.exports = { run };
