// Writes the benchmark inputs: bench/work/{flat,manifest}.{schema.json,jsonl}. Deterministic.
'use strict';
const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');

const root = path.resolve(__dirname, '..');
const work = path.join(__dirname, 'work');
fs.mkdirSync(work, { recursive: true });
const n = parseInt(process.argv[2] || '200000', 10);

// 1. A small flat object schema, the shape of a typical tool's arguments.
const flat = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    file_path: { type: 'string', minLength: 1, pattern: '^data/[a-z0-9_]+\\.csv$' },
    columns: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 8, uniqueItems: true },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    sort: { enum: ['asc', 'desc'] },
    normalize: { type: 'boolean' },
    threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  },
  required: ['file_path', 'columns'],
  additionalProperties: false,
};
fs.writeFileSync(path.join(work, 'flat.schema.json'), JSON.stringify(flat, null, 2) + '\n');

let seed = 42;
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const pick = (a) => a[Math.floor(rnd() * a.length)];
const words = ['sex', 'species', 'island', 'day', 'time', 'smoker', 'size', 'class', 'fare'];
const lines = [];
for (let i = 0; i < n; i++) {
  const o = {
    file_path: `data/${pick(['iris', 'tips', 'penguins', 'titanic'])}.csv`,
    columns: [pick(words), pick(words) + '_2'],
    limit: 1 + Math.floor(rnd() * 1000),
    sort: pick(['asc', 'desc']),
    normalize: rnd() < 0.5,
    threshold: 0.01 + rnd() * 0.98,
  };
  const r = rnd();
  if (r < 0.04) o.limit = 0;            // ~12% invalid, in several ways
  else if (r < 0.08) o.file_path = '/etc/passwd';
  else if (r < 0.12) o.extra = true;
  lines.push(JSON.stringify(o));
}
fs.writeFileSync(path.join(work, 'flat.jsonl'), lines.join('\n') + '\n');

// 2. A realistic nested schema: toolgen's manifest schema against the example manifests,
//    repeated (its input/output schemas are themselves validated against the 2020-12 meta-schema).
const mschema = JSON.parse(fs.readFileSync(path.join(root, 'schemas/tool.manifest.schema.json'), 'utf8'));
fs.writeFileSync(path.join(work, 'manifest.schema.json'), JSON.stringify(mschema, null, 2) + '\n');
const docs = [];
for (const d of fs.readdirSync(path.join(root, 'manifests')).sort()) {
  const f = path.join(root, 'manifests', d, 'tool.manifest.yaml');
  if (fs.existsSync(f)) docs.push(JSON.stringify(yaml.load(fs.readFileSync(f, 'utf8'))));
}
const m = Math.max(1, Math.floor(n / 10));
const mlines = [];
for (let i = 0; i < m; i++) mlines.push(docs[i % docs.length]);
fs.writeFileSync(path.join(work, 'manifest.jsonl'), mlines.join('\n') + '\n');
console.error(`wrote ${n} flat instances and ${m} manifests (${docs.length} distinct)`);
