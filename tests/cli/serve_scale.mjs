// serve_scale.mjs — the official TypeScript SDK 1.x client (legacy era, 2025-11-25) keeps one
// session working through a round-robin load balancer in front of several `toolgen serve
// --http` instances (docs/scale.md): its requests land on every instance, each continuing the
// session from the signed state its id carries; logging/setLevel's reissued id is taken up;
// its GET stream, on whichever instance, hears of a tool added to the working tree, and the new
// tool is listed and called; a call that asks the user (elicitation/create, two questions) gets
// its answers though each response may reach another instance than the call's, which hands it
// on to the call's (--advertise, docs/scale.md#legacy-sessions).
// Run from the repository root by tests/cli/serve_scale.sh with SERVER_URL (the balancer), REPO
// (the served repository), SPARE (a tool folder, c_tool, to copy in) and CALLS. Prints
// "FAIL NAME: why" lines, "session: ID" and "client: N passed, N failed" last.
import { cpSync } from 'node:fs';
import { check, finish, load } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { ToolListChangedNotificationSchema, LoggingMessageNotificationSchema, ElicitRequestSchema } =
  await sdk('types.js');

const { SERVER_URL, REPO, SPARE } = process.env;
const CALLS = Number(process.env.CALLS || 30);
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
const until = (ready, ms = HANG_MS) => new Promise((resolve) => {
  const started = Date.now();
  const poll = () => {
    const v = ready();
    if (v || Date.now() - started > ms) return resolve(v || undefined);
    setTimeout(poll, 20);
  };
  poll();
});

let getOpen = false;
const statuses = [];
const watchingFetch = async (url, init) => {
  const res = await fetch(url, init);
  statuses.push(res.status);
  if ((init?.method ?? 'GET') === 'GET' && res.status === 200) getOpen = true;
  return res;
};
const client = new Client({ name: 'toolgen-test-scale', version: '1.0.0' },
  { capabilities: { elicitation: {} } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  const key = Object.keys(req.params.requestedSchema.properties)[0];
  return { action: 'accept', content: { [key]: key === 'column' ? 'b' : true } };
});
let changed = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
let debugLogs = 0; // a call's "running in the sandbox" is a debug message (docs/mcp.md#logging)
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  if (n.params.level === 'debug') debugLogs++;
});
const transport = new StreamableHTTPClientTransport(new URL(SERVER_URL), { fetch: watchingFetch });

const calls = async (tool, n, label) => {
  let good = 0;
  for (let i = 0; i < n; i++) {
    const r = await client.callTool({ name: tool, arguments: { file_path: 'data/x.csv' } });
    if (r.isError === false && r.structuredContent?.text === 'a,b') good++;
    else console.log(`FAIL ${label} call ${i}: ${JSON.stringify(r).slice(0, 300)}`);
  }
  check(good === n, `${label}: ${n} calls of ${tool} in one session`, `${good} succeeded`);
};

try {
  await client.connect(transport);
  const first = transport.sessionId;
  check(typeof first === 'string' && /^[0-9a-f]+$/.test(first), 'initialize gave a session id', first);
  console.log(`session: ${first}`);
  check(await until(() => getOpen), 'the GET stream is open');
  const before = (await client.listTools()).tools.map((t) => t.name);
  check(before.includes('a_tool') && !before.includes('c_tool'), 'tools/list in the session',
    before.join(','));
  await calls('a_tool', CALLS, 'before setLevel');
  check(debugLogs === 0, 'no debug log message before setLevel', String(debugLogs));

  await client.setLoggingLevel('debug');
  check(transport.sessionId !== first, 'logging/setLevel reissued the session id (with the level)');
  await calls('a_tool', CALLS, 'after setLevel');
  check(debugLogs >= CALLS, 'after setLevel every call, on whichever instance, logs at debug',
    `${debugLogs} debug messages for ${CALLS} calls`);

  for (let i = 0; i < 3; i++) {
    const before = asked.length;
    const r = await client.callTool({ name: 'count_column', arguments: { file_path: 'data/c.csv' } });
    check(asked.length === before + 2, `elicitation ${i}: the user was asked twice`, JSON.stringify(asked));
    check(r.isError === false && r.structuredContent?.count === 2 && r.structuredContent?.column === 'b',
      `elicitation ${i}: the call ends with the answers`, JSON.stringify(r).slice(0, 300));
  }

  cpSync(SPARE, `${REPO}/manifests/c_tool`, { recursive: true });
  check(await until(() => changed > 0), 'list_changed on the GET stream, from whichever instance');
  const after = (await client.listTools()).tools.map((t) => t.name);
  check(after.includes('c_tool'), 'tools/list shows c_tool', after.join(','));
  await calls('c_tool', 6, 'the new tool');
  check(!statuses.some((s) => s === 404 || s >= 500), 'no 404 (session not found) or 5xx',
    statuses.join(','));
} catch (e) {
  check(false, 'the session', e?.stack ?? String(e));
} finally {
  await client.close();
}
finish();
