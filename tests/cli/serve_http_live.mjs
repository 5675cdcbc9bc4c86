// serve_http_live.mjs — over Streamable HTTP, `toolgen serve --dev` tells the official SDK
// clients that the working tree's tool set changed, without a restart: the TypeScript SDK 1.x
// (legacy era) hears notifications/tools/list_changed on the GET stream it opens after
// initialize, and the client 2.x (pinned to 2026-07-28) on the subscriptions/listen stream its
// listChanged option opens; both then list the new tool and call it.
// Run from the repository root by tests/cli/serve_http_live.sh with SERVER_URL, REPO (the
// served repository) and SPARE (a tool folder, c_tool, to copy in). Prints "FAIL NAME: why"
// lines and "client: N passed, N failed" last; exits 1 on a failure.
import { cpSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { check, finish, load, npm } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const v2 = (p) => import(pathToFileURL(`${npm}/@modelcontextprotocol/client/dist/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { ToolListChangedNotificationSchema } = await sdk('types.js');
const C2 = await v2('index.mjs');

const { SERVER_URL, REPO, SPARE } = process.env;
// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
// resolves with what `ready` returns once it is truthy; undefined after ms (then a check fails)
const until = (ready, ms = HANG_MS) => new Promise((resolve) => {
  const started = Date.now();
  const poll = () => {
    const v = ready();
    if (v || Date.now() - started > ms) return resolve(v || undefined);
    setTimeout(poll, 20);
  };
  poll();
});

// the 1.x client: its GET stream is seen opening through its fetch
let getOpen = false;
const watchingFetch = async (url, init) => {
  const res = await fetch(url, init);
  if ((init?.method ?? 'GET') === 'GET' && res.status === 200) getOpen = true;
  return res;
};
const legacy = new Client({ name: 'toolgen-test-live', version: '1.0.0' });
let legacyChanged = 0;
legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => { legacyChanged++; });

// the 2.x client: listChanged opens the subscription while connecting (the acknowledgement
// arrives before connect resolves)
const changed = [];
const modern = new C2.Client({ name: 'toolgen-test-live-2x', version: '1.0.0' }, {
  versionNegotiation: { mode: { pin: '2026-07-28' } },
  listChanged: { tools: { onChanged: (err, tools) => { changed.push(err ? 'error' : tools.map((t) => t.name)); } } },
});

try {
  await legacy.connect(new StreamableHTTPClientTransport(new URL(SERVER_URL), { fetch: watchingFetch }));
  check(legacy.getServerCapabilities()?.tools?.listChanged === true, '1.x: tools.listChanged',
    JSON.stringify(legacy.getServerCapabilities()));
  check(await until(() => getOpen), '1.x: the GET stream is open');
  await modern.connect(new C2.StreamableHTTPClientTransport(new URL(SERVER_URL)));
  check(modern.autoOpenedSubscription !== undefined, '2.x: the subscription is open');
  const before = (await legacy.listTools()).tools.map((t) => t.name);
  check(!before.includes('c_tool'), 'c_tool is not served yet', before.join(','));

  cpSync(SPARE, `${REPO}/manifests/c_tool`, { recursive: true });
  check(await until(() => legacyChanged > 0), '1.x: list_changed on the GET stream');
  const last = await until(() => changed.find((c) => Array.isArray(c) && c.includes('c_tool')));
  check(last !== undefined, '2.x: the listChanged handler sees c_tool', JSON.stringify(changed));

  const after = (await legacy.listTools()).tools.map((t) => t.name);
  check(after.includes('c_tool'), '1.x: tools/list shows c_tool without a restart', after.join(','));
  const r1 = await legacy.callTool({ name: 'c_tool', arguments: { file_path: 'data/x.csv' } });
  check(r1.isError === false && r1.structuredContent?.text === 'a,b', '1.x: c_tool is called',
    JSON.stringify(r1).slice(0, 300));
  const r2 = await modern.callTool({ name: 'c_tool', arguments: { file_path: 'data/x.csv' } });
  check(r2.isError === false && r2.structuredContent?.text === 'a,b', '2.x: c_tool is called',
    JSON.stringify(r2).slice(0, 300));
} catch (e) {
  check(false, 'the sessions', e?.stack ?? String(e));
} finally {
  await legacy.close();
  await modern.close();
}
finish();
