// serve_http_resume.mjs — the official TypeScript SDK 1.x client resumes a call's event stream
// it lost: between it and `toolgen serve --http` stands a proxy that cuts the connection of the
// first tools/call response right after its first event (the priming event's id). The SDK
// reconnects with GET and Last-Event-ID, as the transport lets it, and gets the call's reply
// there; the call was not cancelled. Run by tests/cli/serve_http_resume.sh with SERVER_URL (the
// server) and GO (the file that lets gate_tool finish). Prints "FAIL NAME: why" lines and
// "client: N passed, N failed" last; exits 1 on a failure.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { check, finish, load } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
const target = new URL(process.env.SERVER_URL);

// The proxy: each client connection gets its own to the server. The first connection whose
// request is a tools/call has its response cut once an event id went through.
let cut = 0;
const resumed = [];
const proxy = net.createServer((client) => {
  const server = net.connect(Number(target.port), target.hostname);
  let request = '', isCall = false, seenId = false;
  client.on('data', (d) => {
    request += d.toString('latin1');
    isCall = isCall || (/\r\n\r\n[\s\S]*"tools\/call"/.test(request) && cut === 0);
    for (const m of request.matchAll(/\r\nlast-event-id: ([^\r\n]+)/gi)) // (only a GET sends it)
      if (!resumed.includes(m[1])) resumed.push(m[1]);
    server.write(d);
  });
  server.on('data', (d) => {
    if (!client.destroyed) client.write(d);
    if (isCall && cut === 0 && /\nid: /.test(d.toString('latin1'))) {
      seenId = true;
      cut++;
      client.destroy(); // the connection is lost, the stream is not ended
      server.destroy();
    }
  });
  const end = () => { client.destroy(); server.destroy(); };
  client.on('error', end);
  server.on('error', end);
  client.on('close', () => server.end());
  server.on('close', () => { if (!seenId) client.end(); });
});
await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
const url = new URL(`http://127.0.0.1:${proxy.address().port}/mcp`);

const client = new Client({ name: 'toolgen-resume', version: '1.0.0' });
try {
  await client.connect(new StreamableHTTPClientTransport(url, {
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000,
                           reconnectionDelayGrowFactor: 1.5, maxRetries: 20 } }));
  // with progress asked for, the call answers on an event stream at once, primed with an id
  let ticks = 0;
  const call = client.callTool({ name: 'gate_tool', arguments: { file_path: 'data/go' } },
                               undefined, { timeout: HANG_MS, onprogress: () => { ticks++; } });
  // let the tool finish once the first stream is gone: its reply comes after the cut
  const waitCut = async () => { while (cut === 0) await new Promise((r) => setTimeout(r, 20)); };
  await waitCut();
  writeFileSync(process.env.GO, 'a,b\n');
  const res = await call;
  check(res.isError === false && /a,b/.test(JSON.stringify(res.structuredContent ?? res.content)),
        'the call\'s reply arrives after the stream was lost', JSON.stringify(res).slice(0, 300));
  check(resumed.length >= 1 && /^\d+-\d+$/.test(resumed[0]),
        'the SDK resumed with GET and Last-Event-ID', JSON.stringify(resumed));
  check(ticks >= 1, 'progress reached the client', `${ticks}`);
} catch (e) {
  check(false, 'client session', e?.stack || String(e));
} finally {
  await client.close();
  proxy.close();
}
finish();
