// code_sessions.mjs — code sessions (docs/code.md#sessions) through the official MCP TypeScript
// clients (with the files toolset's file_system): the 1.x client (@modelcontextprotocol/sdk, a legacy HTTP session, so the server knows
// which client it is) and the 2.x client (@modelcontextprotocol/client, 2026-07-28) against
// SERVER_URL (`serve --toolset code --http`); then the 2.x client over stdio against SHORT, whose
// sessions expire after 0.6 s. Run by tests/cli/code_sessions.sh with TG, SHORT, SERVER_URL.
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { check, finish, load } from './client_lib.mjs';

const C1 = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
const H1 = await load('@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js');
const C2 = await load('@modelcontextprotocol/client/dist/index.mjs');
const S2 = await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { TG, SHORT, SERVER_URL } = process.env;
const HANG_MS = Number(process.env.HANG_S || 300) * 1000; // bounds a wait, only against a hang

const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
const sc = (r) => r.structuredContent ?? {};
const text = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const errType = (r) => sc(r).error_guidance?.error_type;

async function legacy(name) {
  const c = new C1.Client({ name, version: '1.0.0' });
  await c.connect(new H1.StreamableHTTPClientTransport(new URL(SERVER_URL)));
  return c;
}
async function modern(name) {
  const c = new C2.Client({ name, version: '1.0.0' }, pin);
  await c.connect(new C2.StreamableHTTPClientTransport(new URL(SERVER_URL)));
  return c;
}
const py = (c, session_id, code, more = {}) =>
  c.callTool({ name: 'python_execute', arguments: { code, session_id, ...more } });

/** A session keeps a variable, an import and a file; forgets them after close. */
async function lifecycle(c, label) {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  check(['create_session', 'close_session', 'python_execute', 'node_execute'].every((n) => names.includes(n)),
    `${label}: tools/list offers the session tools`, JSON.stringify(names));
  let r = await c.callTool({ name: 'create_session', arguments: { runtime: 'python', packages: ['pandas'] } });
  const id = sc(r).session_id;
  check(!r.isError && /^sess_[0-9a-f]{8}_[0-9a-f]{32}$/.test(id ?? ''), `${label}: create_session`, JSON.stringify(r));
  check((sc(r).preloaded ?? []).includes('pandas'), `${label}: pandas preloaded`, JSON.stringify(sc(r)));
  r = await py(c, id, "import pandas as pd\ntotal = 41\nopen('kept.txt', 'w').write('yes')");
  check(!r.isError && (sc(r).session?.cached_imports ?? []).includes('pandas'),
    `${label}: a cached import is told from a first one`, JSON.stringify(sc(r).session));
  r = await py(c, id, "print(total + 1, open('kept.txt').read(), pd.__name__)");
  check(!r.isError && sc(r).stdout === '42 yes pandas\n', `${label}: the variable, import and file survive`,
    JSON.stringify(sc(r)));
  r = await c.callTool({ name: 'node_execute', arguments: { code: 'console.log(1)', session_id: id } });
  check(r.isError && errType(r) === 'SESSION_RUNTIME_MISMATCH', `${label}: node_execute refuses a Python session`,
    text(r));
  r = await c.callTool({ name: 'file_system', arguments: { action: 'write', path: 'notes/n.txt',
    content: 'from the agent', session_id: id } });
  check(!r.isError && sc(r).size === 14, `${label}: file_system writes into the session`, text(r));
  r = await py(c, id, "import csv\nprint(open('notes/n.txt').read(), len(list(csv.reader(open('data/sales.csv')))))");
  check(!r.isError && sc(r).stdout === 'from the agent 3\n',
    `${label}: the program reads it and the data directory`, JSON.stringify(sc(r)));
  r = await c.callTool({ name: 'file_system', arguments: { action: 'read', path: 'kept.txt', session_id: id } });
  check(!r.isError && sc(r).content === 'yes', `${label}: file_system reads what the program wrote`, text(r));
  r = await c.callTool({ name: 'file_system', arguments: { action: 'read', path: '../../etc/passwd', session_id: id } });
  check(r.isError && /outside/.test(text(r)), `${label}: file_system refuses a path outside`, text(r));
  r = await c.callTool({ name: 'close_session', arguments: { session_id: id } });
  check(!r.isError && sc(r).closed === true, `${label}: close_session`, JSON.stringify(r));
  r = await py(c, id, 'print(total)');
  check(r.isError && errType(r) === 'SESSION_CLOSED' && /create_session/.test(text(r)),
    `${label}: forgotten after close, and says how to recover`, text(r));
  check(sc(r).returnCode === null, `${label}: nothing ran after close`, JSON.stringify(sc(r)));
}

/** What the sandbox offers, and the readable refusal of a package it does not. */
async function listings(c, label) {
  let r = await c.callTool({ name: 'list_runtimes', arguments: {} });
  const rts = sc(r).runtimes ?? [];
  check(!r.isError && rts.some((x) => x.name === 'python' && /^3\./.test(x.version)) &&
    rts.some((x) => x.name === 'node'), `${label}: list_runtimes`, JSON.stringify(sc(r)));
  r = await c.callTool({ name: 'list_available_packages', arguments: {} });
  const pandas = (sc(r).python ?? []).find((p) => p.name === 'pandas');
  const seaborn = (sc(r).python ?? []).find((p) => p.name === 'seaborn');
  check(!r.isError && pandas?.installed === true && pandas.import_ms > 0 && pandas.version &&
    pandas.purpose && seaborn?.installed === false, `${label}: list_available_packages`,
    JSON.stringify(sc(r)).slice(0, 600));
  r = await c.callTool({ name: 'create_session', arguments: { runtime: 'python', packages: ['torch'] } });
  check(r.isError && /not allowed: torch/.test(text(r)) && /pandas/.test(text(r)),
    `${label}: a package outside the allowlist is refused, naming what is there`, text(r));
}

/** A one-shot pandas + matplotlib program's CSV, PNG, SVG and visualization manifest come back:
 * the images as image content, the small text files embedded, every file listed. */
async function charts(c, label) {
  const code = [
    'import json, pandas as pd, matplotlib.pyplot as plt',
    "df = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'], 'revenue': [10, 12, 15]})",
    "df.to_csv('revenue.csv', index=False)",
    "df.plot.bar(x='month', y='revenue'); plt.savefig('chart.png'); plt.savefig('chart.svg')",
    "json.dump({'version': '1.0', 'outputs': [{'id': 't', 'type': 'table', 'dataFile': 'revenue.csv'}]},",
    "          open('visualization_manifest.json', 'w'))"].join('\n');
  const r = await c.callTool({ name: 'python_execute', arguments: { code, packages: ['pandas', 'matplotlib'] } },
    undefined, { timeout: HANG_MS });
  const files = (sc(r).files ?? []).map((f) => f.filename).sort();
  check(!r.isError && ['chart.png', 'chart.svg', 'revenue.csv', 'visualization_manifest.json']
    .every((f) => files.includes(f)), `${label}: every file listed`, JSON.stringify(sc(r)).slice(0, 600));
  const blocks = r.content ?? [];
  check(blocks.some((b) => b.type === 'image' && b.mimeType === 'image/png'), `${label}: the PNG as an image`);
  check(blocks.some((b) => b.type === 'image' && b.mimeType === 'image/svg+xml' &&
    Buffer.from(b.data, 'base64').toString().includes('<svg')), `${label}: the SVG as an image`);
  check(blocks.some((b) => b.type === 'resource' && b.resource?.text?.startsWith('month,revenue')),
    `${label}: the CSV embedded`, JSON.stringify(blocks.map((b) => b.type)));
  const d = await c.callTool({ name: 'python_execute', arguments: {
    code: "import pandas as pd\nprint(int(pd.read_csv('data/sales.csv').sales.sum()))\nopen('data/x', 'w')" } },
    undefined, { timeout: HANG_MS });
  check(sc(d).stdout === '215\n' && /Read-only file system/.test(sc(d).stderr ?? '') &&
    !(sc(d).files ?? []).some((f) => f.path.startsWith('data/')),
    `${label}: a one-shot program reads the data directories, read-only, and they are not its files`,
    JSON.stringify(sc(d)).slice(0, 600));
  check((sc(r).visualizations?.outputs ?? sc(r).visualizations?.manifest?.outputs ?? []).length === 1 ||
    JSON.stringify(sc(r).visualizations ?? {}).includes('revenue.csv'), `${label}: the visualization manifest`,
    JSON.stringify(sc(r).visualizations ?? null));
}

/** Another (identified) client cannot use or close a session. */
async function otherClient() {
  const a = new C1.Client({ name: 'session-owner', version: '1.0.0' });
  const ta = new H1.StreamableHTTPClientTransport(new URL(SERVER_URL));
  await a.connect(ta);
  const b = await legacy('session-stranger');
  try {
    const r0 = await a.callTool({ name: 'create_session', arguments: { runtime: 'node' } });
    const id = sc(r0).session_id;
    let r = await a.callTool({ name: 'node_execute', arguments: { code: 'var n = 7;', session_id: id } });
    check(!r.isError, 'node session: a global', text(r));
    r = await b.callTool({ name: 'node_execute', arguments: { code: 'console.log(n)', session_id: id } });
    check(r.isError && errType(r) === 'SESSION_NOT_FOUND', 'another client cannot use it', text(r));
    r = await b.callTool({ name: 'close_session', arguments: { session_id: id } });
    check(!r.isError && sc(r).closed === false, 'another client cannot close it', JSON.stringify(sc(r)));
    r = await a.callTool({ name: 'node_execute', arguments: { code: 'console.log(n * 6)', session_id: id } });
    check(!r.isError && sc(r).stdout === '42\n', 'the owner still can', JSON.stringify(sc(r)));
    // the owner's MCP session ends (DELETE): its code sessions end with it, at the server's
    // next sweep of HTTP sessions
    await ta.terminateSession();
    const gone = /ended .* with the MCP session of the client/;
    const started = Date.now();
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await b.callTool({ name: 'node_execute', arguments: { code: '1', session_id: id } });
    } while (!gone.test(text(r)) && Date.now() - started < HANG_MS);
    check(r.isError && gone.test(text(r)), 'a code session ends with its client\'s MCP session', text(r));
  } finally {
    await a.close().catch(() => {});
    await b.close().catch(() => {});
  }
}

/** A session idle past code.sessions.idle_minutes expires, with an error that says what to do. */
async function expiry() {
  const c = new C2.Client({ name: 'session-expiry', version: '1.0.0' }, pin);
  await c.connect(new S2.StdioClientTransport({ command: TG,
    args: ['-C', SHORT, 'serve', '--dev', '--toolset', 'code'], stderr: 'inherit' }));
  try {
    const r0 = await c.callTool({ name: 'create_session', arguments: { runtime: 'python' } });
    const id = sc(r0).session_id;
    check(!r0.isError && sc(r0).idle_timeout_s === 0, 'the short server: a session', JSON.stringify(sc(r0)));
    await new Promise((resolve) => setTimeout(resolve, 2500)); // past 0.6 s of idleness
    const r = await py(c, id, 'print(1)');
    check(r.isError && errType(r) === 'SESSION_EXPIRED', 'an idle session expires', text(r));
    check(/expired/.test(text(r)) && /create_session/.test(text(r)), 'the expiry error says how to recover',
      text(r));
  } finally {
    await c.close().catch(() => {});
  }
}

try {
  const one = await legacy('sessions-1x');
  await lifecycle(one, '1.x');
  await charts(one, '1.x');
  await one.close();
  const two = await modern('sessions-2x');
  await lifecycle(two, '2.x');
  await listings(two, '2.x');
  await charts(two, '2.x');
  await two.close();
  await otherClient();
  await expiry();
} catch (e) {
  check(false, 'the clients', e.stack);
}
finish();
