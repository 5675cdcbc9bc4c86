// mcp_client.mjs LABEL URL CMD [ARG...] — the measuring client of bench/mcp.sh (official SDK 1.x
// client over Streamable HTTP): starts the server (CMD), then measures the time to its first
// tools/list, tools/list latency, sequential and 8-way concurrent tools/call, and the server's
// memory; stops it and prints one JSON line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const npm = `${process.cwd()}/tests/npm/node_modules`;
const sdk = (p) => import(pathToFileURL(`${npm}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const [label, url, cmd, ...args] = process.argv.slice(2);
const LISTS = Number(process.env.LISTS || 30), SEQ = Number(process.env.SEQ || 40);
const CONC = Number(process.env.CONC || 80), WAYS = 8;

const connect = async () => {
  const c = new Client({ name: 'bench', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
};
const pct = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const ms = (t) => Number(t.toFixed(2));
const mem = (field) => Number((readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`)) || [])[1] || 0) / 1024;

const start = performance.now();
const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'ignore'] });
const pid = child.pid;
process.on('exit', () => child.kill('SIGTERM')); /* also when a step fails */
let client;
for (;;) { /* the first tools/list that succeeds */
  try { client = await connect(); await client.listTools(); break; }
  catch { await new Promise((r) => setTimeout(r, 5)); }
  if (performance.now() - start > 60000) throw new Error(`${label}: no tools/list within 60 s`);
}
const ttfl = performance.now() - start;
const lists = [];
let tools = 0;
for (let i = 0; i < LISTS; i++) {
  const t0 = performance.now();
  let cursor, all = [];
  do { const p = await client.listTools(cursor ? { cursor } : {}); all.push(...p.tools); cursor = p.nextCursor; } while (cursor);
  lists.push(performance.now() - t0);
  tools = all.length;
}
const call = { name: 't0000', arguments: { file_path: 'data/x.csv' } };
const seq = [];
const s0 = performance.now();
for (let i = 0; i < SEQ; i++) {
  const t0 = performance.now();
  const r = await client.callTool(call);
  if (r.isError) throw new Error(JSON.stringify(r));
  seq.push(performance.now() - t0);
}
const seqWall = performance.now() - s0;
const conc = [];
let next = 0;
const c0 = performance.now();
await Promise.all(Array.from({ length: WAYS }, async () => {
  while (next < CONC) {
    next++;
    const t0 = performance.now();
    const r = await client.callTool(call);
    if (r.isError) throw new Error(JSON.stringify(r));
    conc.push(performance.now() - t0);
  }
}));
const concWall = performance.now() - c0;
console.log(JSON.stringify({
  label, tools, first_list_ms: ms(ttfl),
  list_p50_ms: ms(pct(lists, 0.5)), list_p95_ms: ms(pct(lists, 0.95)),
  seq_calls_per_s: ms(SEQ / (seqWall / 1000)), seq_p50_ms: ms(pct(seq, 0.5)), seq_p95_ms: ms(pct(seq, 0.95)),
  conc8_calls_per_s: ms(CONC / (concWall / 1000)), conc8_p50_ms: ms(pct(conc, 0.5)), conc8_p95_ms: ms(pct(conc, 0.95)),
  rss_mb: ms(mem('VmRSS')), peak_rss_mb: ms(mem('VmHWM')),
}));
await client.close();
child.kill('SIGTERM');
