// The ajv side of bench/validate.sh: the same protocol as `toolgen validate --jsonl`
// (one JSON value per stdin line → one "valid"/"invalid" line), draft 2020-12, compiled once.
'use strict';
const fs = require('fs');
const readline = require('readline');
const Ajv2020 = require('ajv/dist/2020');

const schema = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const validate = ajv.compile(schema);

const out = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let v;
  try { v = JSON.parse(line); } catch { out.push('invalid'); return; }
  out.push(validate(v) ? 'valid' : 'invalid');
  if (out.length >= 4096) { process.stdout.write(out.join('\n') + '\n'); out.length = 0; }
});
rl.on('close', () => { if (out.length) process.stdout.write(out.join('\n') + '\n'); });
