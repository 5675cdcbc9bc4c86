// serve_watch.mjs — `toolgen serve --dev` tells its clients when the working tree's tool set
// changes while they are connected: notifications/tools/list_changed (and resources) for a
// legacy client on its connection, and on a 2026-07-28 subscriptions/listen stream tagged with
// the subscription's id; a cancelled subscription hears nothing more; an edit that does not
// change what tools/list shows is not announced.
// Run from the repository root by tests/cli/serve_watch.sh with TG, REPO (a repository with
// one tool, manifests/a_tool) and SPARE (a tool folder to copy in). Prints "FAIL NAME: why"
// lines and "client: N passed, N failed" last; exits 1 on a failure.
import { spawn } from 'node:child_process';
import { cpSync, rmSync, appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { check, finish } from './client_lib.mjs';

const { TG, REPO, SPARE } = process.env;
// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;

const server = spawn(TG, ['-C', REPO, 'serve', '--dev'], { stdio: ['pipe', 'pipe', 'inherit'] });
const seen = [];
let wake = () => {};
createInterface({ input: server.stdout }).on('line', (line) => { seen.push(JSON.parse(line)); wake(); });
// waits for a message that pred accepts (the server checks for changes about once a second)
const waitFor = (pred, ms = HANG_MS) => new Promise((resolve) => {
  const found = () => seen.find(pred);
  if (found()) return resolve(found());
  const timer = setTimeout(() => { wake = () => {}; resolve(undefined); }, ms);
  wake = () => { const m = found(); if (m) { clearTimeout(timer); wake = () => {}; resolve(m); } };
});
const send = (msg) => server.stdin.write(JSON.stringify(msg) + '\n');
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {} };
const subOf = (m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'];

send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25',
  capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const init = await waitFor((m) => m.id === 1);
check(init?.result?.capabilities?.tools?.listChanged === true, 'legacy: tools.listChanged true');
check(init?.result?.capabilities?.resources?.listChanged === true, 'legacy: resources.listChanged true');
send({ jsonrpc: '2.0', method: 'notifications/initialized' });
send({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta } });
const disc = await waitFor((m) => m.id === 2);
check(disc?.result?.capabilities?.tools?.listChanged === true, '2026: tools.listChanged true');
send({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { _meta: meta,
  notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['x'] } } });
const ack = await waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
check(subOf(ack) === 'sub-1', 'the acknowledgement carries the subscription id', JSON.stringify(ack));
check(JSON.stringify(ack?.params.notifications) === '{"toolsListChanged":true}',
  'only what the server honours is acknowledged', JSON.stringify(ack?.params));
check(!seen.some((m) => m.id === 'sub-1'), 'the listen request stays open (no response)');
send({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params: { _meta: meta } });
const badListen = await waitFor((m) => m.id === 3);
check(badListen?.error?.code === -32602, 'a listen without a filter is -32602');

// a tool appears
cpSync(SPARE, `${REPO}/manifests/b_tool`, { recursive: true });
const legacy1 = await waitFor((m) => m.method === 'notifications/tools/list_changed' && !subOf(m));
check(legacy1 !== undefined, 'legacy: list_changed when a tool appears');
const stream1 = await waitFor((m) => m.method === 'notifications/tools/list_changed' && subOf(m) === 'sub-1');
check(stream1 !== undefined, '2026: list_changed on the subscription');
check(await waitFor((m) => m.method === 'notifications/resources/list_changed' && !subOf(m)),
  'legacy: resources list_changed too');
check(!seen.some((m) => m.method === 'notifications/resources/list_changed' && subOf(m)),
  'the subscription did not ask for resources');
send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } });
const list = await waitFor((m) => m.id === 4);
check(JSON.stringify(list?.result?.tools.map((t) => t.name)) === '["a_tool","b_tool"]',
  'tools/list shows the new tool', JSON.stringify(list?.result?.tools?.map((t) => t.name)));

// an edit that does not change tools/list: nothing announced; then a description edit is
const before = seen.length;
appendFileSync(`${REPO}/manifests/b_tool/tool.manifest.yaml`, '# a comment\n');
send({ jsonrpc: '2.0', id: 5, method: 'ping' });
await waitFor((m) => m.id === 5);
// Nothing may come. The server says nothing when a check finds no change, so there is no event
// to wait for: this window of two idle checks can only miss an announcement on a slow machine,
// never fail because of one.
await new Promise((r) => setTimeout(r, 2500));
check(!seen.slice(before).some((m) => m.method?.endsWith('list_changed')),
  'a comment is not a change of the tool set');

// the subscription is cancelled; the legacy connection still hears
send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-1' } });
const mark = seen.length;
const file = `${REPO}/manifests/b_tool/tool.manifest.yaml`;
writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: Another description of b_tool.'));
const legacy2 = await waitFor((m, i) => seen.indexOf(m) >= mark && m.method === 'notifications/tools/list_changed');
check(legacy2 !== undefined && !subOf(legacy2), 'legacy: list_changed when a description changes');
send({ jsonrpc: '2.0', id: 6, method: 'ping' });
await waitFor((m) => m.id === 6);
send({ jsonrpc: '2.0', id: 60, method: 'tools/list' });
const mid = await waitFor((m) => m.id === 60);
check(mid?.result?.tools?.[1]?.description?.startsWith('Another description of b_tool.'),
  'tools/list shows the new description', JSON.stringify(mid?.result?.tools?.map((t) => t.description)));
check(!seen.slice(mark).some((m) => subOf(m) === 'sub-1'), 'a cancelled subscription hears nothing');

// the tool goes away
rmSync(`${REPO}/manifests/b_tool`, { recursive: true });
const m3 = seen.length;
const legacy3 = await waitFor((m) => seen.indexOf(m) >= m3 && m.method === 'notifications/tools/list_changed');
check(legacy3 !== undefined, 'legacy: list_changed when a tool goes away');
send({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
const list2 = await waitFor((m) => m.id === 7);
check(JSON.stringify(list2?.result?.tools.map((t) => t.name)) === '["a_tool"]', 'tools/list without it');

server.stdin.end();
const code = await new Promise((r) => server.on('close', r));
check(code === 0, 'serve ends cleanly', String(code));
finish();
