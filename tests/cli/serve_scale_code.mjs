// serve_scale_code.mjs — the official TypeScript SDK 1.x client (legacy era, 2025-11-25) uses
// one code session through a round-robin load balancer in front of several `toolgen serve
// --http` instances (docs/scale.md#code-sessions): create_session lands on one instance, and
// every later call of the session, on whichever instance round robin picks, is relayed to that
// one — with a progress token, so that the reply is an event stream relayed event by event.
// The calls count x up in the session's interpreter: the results prove it is one interpreter.
// close_session (through whichever instance) ends it there.
// Run from the repository root by tests/cli/serve_scale.sh with SERVER_URL (the balancer) and
// CALLS. Prints "FAIL NAME: why" lines, "handle: H", "counts: ..." and "client: N passed, N
// failed" last.
import { check, finish, load } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const { SERVER_URL } = process.env;
const CALLS = Number(process.env.CALLS || 9);

const statuses = [];
const watchingFetch = async (url, init) => {
  const res = await fetch(url, init);
  statuses.push(res.status);
  return res;
};
const client = new Client({ name: 'toolgen-test-scale-code', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(SERVER_URL), { fetch: watchingFetch });

try {
  await client.connect(transport);
  const made = await client.callTool({ name: 'create_session', arguments: { runtime: 'python' } });
  const handle = made.structuredContent?.session_id;
  check(typeof handle === 'string' && handle.includes('.'), 'create_session: a handle with its route',
    JSON.stringify(made).slice(0, 300));
  console.log(`handle: ${handle}`);
  const first = await client.callTool({ name: 'python_execute', arguments: { session_id: handle, code: 'x = 1' } });
  check(first.isError === false, 'x = 1 in the session', JSON.stringify(first).slice(0, 300));
  const counts = [];
  let progress = 0;
  for (let i = 0; i < CALLS; i++) {
    const r = await client.callTool({ name: 'python_execute',
      arguments: { session_id: handle, code: 'x += 1\nprint(x)' } }, undefined,
    { onprogress: () => { progress++; } });
    counts.push(r.isError === false ? r.structuredContent?.stdout?.trim() : 'ERR');
  }
  console.log(`counts: ${counts.join(' ')}`);
  const want = Array.from({ length: CALLS }, (_, i) => String(i + 2));
  check(counts.join(' ') === want.join(' '), `${CALLS} calls, one interpreter`, counts.join(' '));
  check(progress >= CALLS, 'the progress notifications came through (event streams relayed)',
    `${progress} for ${CALLS} calls`);
  const closed = await client.callTool({ name: 'close_session', arguments: { session_id: handle } });
  check(closed.structuredContent?.closed === true, 'close_session, through whichever instance',
    JSON.stringify(closed).slice(0, 300));
  const after = await client.callTool({ name: 'python_execute', arguments: { session_id: handle, code: 'print(x)' } });
  check(after.isError === true && JSON.stringify(after).includes('was closed'),
    'a call after close_session: the session was closed', JSON.stringify(after).slice(0, 300));
  check(!statuses.some((s) => s === 404 || s >= 500), 'no 404 (session not found) or 5xx',
    statuses.join(','));
} catch (e) {
  check(false, 'the session', e?.stack ?? String(e));
} finally {
  await client.close();
}
finish();
