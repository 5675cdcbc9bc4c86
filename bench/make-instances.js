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

// 3. MCP messages (tests/testdata/mcp-schema): "mcp" checks them against the schema's
//    JSONRPCMessage (the envelope only: its anyOf of request, notification, result and error);
//    "mcpstrict" checks the bodies too: the client requests (an anyOf over the request types,
//    each pinning "method" with const) and the results of initialize, tools/list and tools/call.
const mcpSchema = JSON.parse(fs.readFileSync(
  path.join(root, 'tests/testdata/mcp-schema/2025-11-25/schema.json'), 'utf8'));
const mcp = { $schema: mcpSchema.$schema, $ref: '#/$defs/JSONRPCMessage', $defs: mcpSchema.$defs };
fs.writeFileSync(path.join(work, 'mcp.schema.json'), JSON.stringify(mcp, null, 2) + '\n');
const strictDefs = Object.assign({}, mcpSchema.$defs, {
  StrictResultResponse: {
    type: 'object',
    properties: {
      jsonrpc: { const: '2.0', type: 'string' },
      id: { $ref: '#/$defs/RequestId' },
      result: { anyOf: [{ $ref: '#/$defs/InitializeResult' }, { $ref: '#/$defs/ListToolsResult' },
        { $ref: '#/$defs/CallToolResult' }] },
    },
    required: ['jsonrpc', 'id', 'result'],
  },
});
const mcpStrict = {
  $schema: mcpSchema.$schema,
  anyOf: [{ $ref: '#/$defs/ClientRequest' }, { $ref: '#/$defs/ClientNotification' },
    { $ref: '#/$defs/StrictResultResponse' }, { $ref: '#/$defs/JSONRPCErrorResponse' }],
  $defs: strictDefs,
};
fs.writeFileSync(path.join(work, 'mcpstrict.schema.json'), JSON.stringify(mcpStrict, null, 2) + '\n');
const tools = [];
for (const d of fs.readdirSync(path.join(root, 'manifests')).sort()) {
  const f = path.join(root, 'manifests', d, 'tool.manifest.yaml');
  if (!fs.existsSync(f)) continue;
  const t = yaml.load(fs.readFileSync(f, 'utf8'));
  tools.push({ name: t.name, title: t.title || t.name, description: String(t.description || ''),
    inputSchema: t.input_schema || { type: 'object' },
    annotations: { readOnlyHint: true, openWorldHint: false } });
}
const mcpMessage = (i) => {
  const id = i % 3 === 0 ? `req-${i}` : i;
  switch (i % 8) {
  case 0: return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true }, sampling: {} },
    clientInfo: { name: 'bench-client', version: '1.0.0' } } };
  case 1: return { jsonrpc: '2.0', method: 'notifications/initialized' };
  case 2: return { jsonrpc: '2.0', id, method: 'tools/list', params: {} };
  case 3: return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: pick(tools).name,
    arguments: { file_path: 'data/tips.csv', columns: ['tip', 'size'], limit: 10 } } };
  case 4: return { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25',
    capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'toolgen', version: '0.1.0' } } };
  case 5: return { jsonrpc: '2.0', id, result: { tools: tools.slice(0, 3) } };
  case 6: return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '{"rows": 10, "mean": 2.99}' }],
    structuredContent: { rows: 10, mean: 2.99 }, isError: false } };
  default: return rnd() < 0.5
    ? { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } }
    : { jsonrpc: '2.0', id, method: 'tools/call', params: { arguments: {} } }; // no name: invalid when strict
  }
};
const k = Math.max(1, Math.floor(n / 4));
const mcpLines = [];
for (let i = 0; i < k; i++) mcpLines.push(JSON.stringify(mcpMessage(i)));
fs.writeFileSync(path.join(work, 'mcp.jsonl'), mcpLines.join('\n') + '\n');
fs.writeFileSync(path.join(work, 'mcpstrict.jsonl'), mcpLines.join('\n') + '\n');
console.error(`wrote ${n} flat instances, ${m} manifests (${docs.length} distinct), ${k} MCP messages`);
