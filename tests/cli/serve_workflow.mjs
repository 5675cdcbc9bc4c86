// serve_workflow.mjs — the lifecycle over MCP (docs/mcp.md#the-workflow-over-mcp), driven by
// the official TypeScript SDK (1.x, legacy era) over stdio against `toolgen serve` (the
// registry) in a repository whose toolgen.yaml says serve: {workflow: true}, with the
// built-in generator: generate → run → feedback, which the client's form asks the person
// (the SDK's elicitation handler answers as they would: "yes", then "Approve") → promote →
// list_changed → the new tool is called in the same session; then the refusals: Stage 2 before
// Stage 1 (the person is not asked), promotion before approval, "looks good" is no approval,
// a reply an agent writes into the arguments, a client that cannot show forms (told the
// command the person runs); a rejection with the user's notes, refined into the next version
// (reject_tool); then a 2026-07-28 client over stdio — its person answers input_required
// forms — and both eras over Streamable HTTP, hear of a promotion.
// Run from the repository root by tests/cli/serve_workflow.sh with TG and REPO. Prints
// "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { check, finish, load } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ElicitRequestSchema, ToolListChangedNotificationSchema } = await sdk('types.js');

const { TG, REPO } = process.env;
// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
const T = 'mean_tip_by_day';

// the person behind the client: each form they are shown is answered with the next of `says`
const client = new Client({ name: 'workflow-test', version: '1.0.0' },
  { capabilities: { elicitation: {} } });
const says = [], shown = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  shown.push(req.params.message);
  const reply = says.shift();
  return reply === undefined ? { action: 'decline' } : { action: 'accept', content: { reply } };
});
let changed = 0, wake = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; wake(); });
// the whole environment: TOOLGEN_USER names who approves (the SDK passes only a few variables)
await client.connect(new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve'],
  env: { ...process.env }, stderr: 'inherit' }));
const call = (name, args) => client.callTool({ name, arguments: args }, undefined,
  { timeout: HANG_MS });
const text = (r) => r.content?.[0]?.text ?? '';

check(/submit_tool_feedback, which asks the user/.test(client.getInstructions() ?? ''),
  'the instructions tell the agent how to use the workflow', client.getInstructions());

// the workflow's tools, and no promoted tool yet
const first = await client.listTools();
const names = first.tools.map((t) => t.name);
check(JSON.stringify(names) === JSON.stringify(['list_available_tools', 'generate_tool',
  'run_staged_tool', 'submit_tool_feedback', 'promote_tool', 'reject_tool']),
  'the workflow tools only', JSON.stringify(names));
const fb = first.tools.find((t) => t.name === 'submit_tool_feedback');
check(/through the client's form/.test(fb?.description) && /cannot answer it/.test(fb?.description) &&
  JSON.stringify(fb?.inputSchema.required) === '["tool","stage"]' && !fb?.inputSchema.properties.reply,
  'submit_tool_feedback takes no reply: it asks the user', JSON.stringify(fb));
let avail = await call('list_available_tools', {});
check(!avail.isError && avail.structuredContent.tools.length === 0, 'no promoted tool yet',
  JSON.stringify(avail.structuredContent));

// an existing tool that covers the request but is not served is not offered: the agent could
// not call it
let g0 = await call('generate_tool', { intent: 'number of rows per day and time',
  data_file: 'data/tips.csv' });
check(g0.structuredContent?.outcome !== 'REUSE' &&
  text(g0).includes('group_and_count_by_columns') &&
  text(g0).includes('it is not one of the tools this caller can call'),
  'generate_tool: no REUSE of a tool that is not served', text(g0));

// generate: staged, run once on the data file, presented
const gen = await call('generate_tool', { intent: 'average tip by day', data_file: 'data/tips.csv' });
check(!gen.isError, 'generate_tool', text(gen));
check(gen.structuredContent?.tool === T && gen.structuredContent?.state === 'STAGED',
  'generate_tool stages the candidate', JSON.stringify(gen.structuredContent?.state));
check(text(gen).includes('Is this output correct') && text(gen).includes('| Sun | 3.255'),
  'generate_tool presents the staged run (output first, the questions)', text(gen));
check(!text(gen).includes('toolgen ') &&
  text(gen).includes('submit_tool_feedback (stage "output")') &&
  text(gen).includes('reject_tool'), 'the presentation names the MCP tools, not the CLI',
  text(gen));
check(gen.structuredContent?.run_artifacts?.rows_processed !== undefined,
  'the run artifacts come along', JSON.stringify(gen.structuredContent?.run_artifacts));

// a run of the staged candidate on given arguments
const run = await call('run_staged_tool', { tool: T, arguments: { file_path: 'data/tips.csv' } });
check(!run.isError && text(run).includes('Mean of tip per day'), 'run_staged_tool presents',
  text(run));

// refusals before the user's approval
let r = await call('promote_tool', { tool: T });
check(r.isError && text(r).includes('must be APPROVED'), 'promote before approval is refused',
  text(r));
check(text(r).includes('submit_tool_feedback (stage "decision")') && !text(r).includes('toolgen '),
  'the refusal names the MCP tool that leads on, not a command', text(r));
says.push('Approve');
r = await call('submit_tool_feedback', { tool: T, stage: 'decision' });
check(r.isError && text(r).includes('needs an accepted output first') && shown.length === 0,
  'Stage 2 before Stage 1 is refused, and the person is not asked', text(r));
says.length = 0;
r = await call('submit_tool_feedback', { tool: T, stage: 'maybe' });
check(r.isError && text(r).includes('"/stage"'), 'a stage that is neither: INVALID_INPUT with '
  + 'the pointer', text(r));
r = await call('submit_tool_feedback', { tool: T, stage: 'decision', reply: 'Approve' });
check(r.isError && text(r).includes('"/reply"') && shown.length === 0,
  'a reply the agent writes into the arguments is refused', text(r));

// the person's answers, through the client's form
says.push('yes');
r = await call('submit_tool_feedback', { tool: T, stage: 'output' });
check(!r.isError && r.structuredContent?.decision === 'OUTPUT_ACCEPTED' &&
  r.structuredContent?.reply === 'yes', 'Stage 1: the person answers "yes"', text(r));
check(shown.length === 1 && shown[0].includes(T) && /correct/.test(shown[0]),
  'the form asks whether the output is correct', JSON.stringify(shown));
says.push(undefined); // the person closes the form without answering
r = await call('submit_tool_feedback', { tool: T, stage: 'decision' });
check(r.isError && /declined/.test(text(r)), 'a declined form decides nothing', text(r));
says.push('Approve');
r = await call('submit_tool_feedback', { tool: T, stage: 'decision' });
check(!r.isError && r.structuredContent?.state === 'APPROVED' && /reusable tool/.test(shown[2]),
  'Stage 2: the person answers "Approve"', text(r));

// promotion: a commit, the tool set changes while connected, the tool is callable
const before = changed;
const announced = new Promise((resolve) => {
  const t = setTimeout(() => resolve(false), HANG_MS);
  wake = () => { if (changed > before) { clearTimeout(t); resolve(true); } };
});
r = await call('promote_tool', { tool: T });
check(!r.isError && /^[0-9a-f]{40}$/.test(r.structuredContent?.commit ?? ''),
  'promote_tool commits', text(r));
check(await announced, 'list_changed after the promotion');
const after = await client.listTools();
check(after.tools.some((t) => t.name === T), 'tools/list has the promoted tool',
  JSON.stringify(after.tools.map((t) => t.name)));
const res = await call(T, { file_path: 'data/tips.csv' });
check(!res.isError && Array.isArray(res.structuredContent?.groups ?? res.structuredContent?.rows ??
  Object.values(res.structuredContent ?? {}).find(Array.isArray)),
  'the promoted tool is called in the same session', JSON.stringify(res).slice(0, 400));
avail = await call('list_available_tools', {});
check(text(avail).includes(`- **${T}** (v0.1.0): `), 'list_available_tools lists it (seed 7.2)',
  text(avail));
r = await call('promote_tool', { tool: T });
check(!r.isError && r.structuredContent?.already === true,
  'promote_tool again: already active, nothing to do (idempotent)', text(r));

// the same reading on other columns: the served tool covers it, REUSE with the exact call
r = await call('generate_tool', { intent: 'mean total bill for each time', data_file: 'data/tips.csv' });
check(!r.isError && r.structuredContent?.outcome === 'REUSE' && r.structuredContent?.tool === T &&
  text(r).includes('reading: mean of total_bill, grouped by time') &&
  text(r).includes('"value_columns":["total_bill"],"group_by":["time"]'),
  'generate_tool: REUSE of the served tool, the reading first, the exact call', text(r));
check(JSON.stringify(r.structuredContent?.arguments?.group_by) === '["time"]' &&
  JSON.stringify(r.structuredContent?.arguments?.value_columns) === '["total_bill"]',
  'generate_tool: REUSE gives the exact call\'s arguments as data', JSON.stringify(r.structuredContent));

// a request that leaves one thing open: the user is asked through the client's form (the
// options as a choice), and the tool is generated with their answer
const asked = shown.length;
says.push('sum');
r = await call('generate_tool', { intent: 'size by day', data_file: 'data/tips.csv' });
check(shown.length === asked + 1 && /What should be computed of size per day/.test(shown[asked] ?? ''),
  'generate_tool: the open question goes to the user through the form', JSON.stringify(shown.slice(asked)));
check(!r.isError && r.structuredContent?.tool === 'sum_size_by_day' &&
  text(r).includes('sum of size, grouped by day'),
  'generate_tool: generated with the user\'s answer', text(r));

// "looks good" is not an approval: the candidate is rejected and cannot be promoted
const T2 = 'median_tip_by_time';
r = await call('generate_tool', { intent: 'median tip by time', data_file: 'data/tips.csv' });
check(!r.isError && r.structuredContent?.tool === T2, 'a second tool is generated', text(r));
says.push('yes', 'looks good');
r = await call('submit_tool_feedback', { tool: T2, stage: 'output' });
r = await call('submit_tool_feedback', { tool: T2, stage: 'decision' });
check(!r.isError && r.structuredContent?.decision === 'REJECTED' &&
  r.structuredContent?.state === 'REJECTED', '"looks good" rejects', text(r));
r = await call('promote_tool', { tool: T2 });
check(r.isError && text(r).includes('REJECTED'), 'a rejected tool is not promoted', text(r));
avail = await call('list_available_tools', {});
check(!text(avail).includes(T2), 'the rejected tool is not available', text(avail));

// after a rejection the review goes on: reject_tool with the user's notes, refined from them
r = await call('reject_tool', { tool: T2, notes: '' });
check(r.isError && text(r).includes('"/notes"'), 'reject_tool needs the user\'s notes', text(r));
r = await call('reject_tool', { tool: T2, notes: 'median tip by time', refine: true });
check(!r.isError && r.structuredContent?.tool === T2 && r.structuredContent?.version === '0.2.0' &&
  r.structuredContent?.state === 'STAGED', 'reject_tool refines: the next version is staged',
  text(r));
check(text(r).includes('REJECTED with the user\'s notes') && text(r).includes('Is this output correct'),
  'reject_tool says what it did and presents the new run', text(r));
r = await call('reject_tool', { tool: T2, notes: 'wrong column: should be day' });
check(!r.isError && r.structuredContent?.state === 'REJECTED' &&
  JSON.stringify(r.structuredContent?.issues) === '["COLUMN_MISMATCH"]',
  'reject_tool without refine archives it with its issues', text(r));
r = await call('reject_tool', { tool: T2, notes: 'again' });
check(r.isError && !text(r).includes('toolgen '), 'nothing left to reject: refused, in MCP words',
  text(r));

await client.close();

// a client that cannot show the person a form: refused, told the command the person runs
const blind = new Client({ name: 'workflow-test-noforms', version: '1.0.0' });
await blind.connect(new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve'],
  env: { ...process.env }, stderr: 'inherit' }));
const T5 = 'median_size_by_day';
r = await blind.callTool({ name: 'generate_tool', arguments: { intent: 'median size by day',
  data_file: 'data/tips.csv' } }, undefined, { timeout: HANG_MS });
check(!r.isError && r.structuredContent?.tool === T5, 'a fourth tool is generated', text(r));
r = await blind.callTool({ name: 'submit_tool_feedback', arguments: { tool: T5, stage: 'output' } });
check(r.isError && r.structuredContent?.error?.code === 'REFUSED' &&
  text(r).includes(`toolgen feedback ${T5} --output`), 'no forms: refused, naming the command', text(r));
// without forms, a question is the result, for the agent to ask the user; their answer goes
// in assume
r = await blind.callTool({ name: 'generate_tool', arguments: { intent: 'tip by day',
  data_file: 'data/tips.csv' } }, undefined, { timeout: HANG_MS });
check(!r.isError && r.structuredContent?.outcome === 'QUESTION' &&
  r.structuredContent?.about === 'aggregate' && r.structuredContent?.options?.includes('median') &&
  text(r).includes('"aggregate=median"'), 'no forms: the question is the result', text(r));
r = await blind.callTool({ name: 'generate_tool', arguments: { intent: 'tip by day',
  data_file: 'data/tips.csv', assume: ['aggregate=median'] } }, undefined, { timeout: HANG_MS });
check(!r.isError && r.structuredContent?.tool === 'median_tip_by_day',
  'no forms: the answer in assume settles it', text(r));
await blind.close();

// a 2026-07-28 client hears of the promotion on its subscriptions/listen stream: a third tool,
// generated and staged on the command line, approved by the person through input_required
// forms, promoted over MCP
const T3 = 'max_total_bill_by_day';
const tg = (...a) => execFileSync(TG, ['-C', REPO, ...a], { stdio: ['ignore', 'pipe', 'pipe'] });
tg('new', 'maximum total_bill by day', '--data', 'data/tips.csv');
tg('build', T3);
tg('stage', T3);
const server = spawn(TG, ['-C', REPO, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
const seen = [];
let wake2 = () => {};
createInterface({ input: server.stdout }).on('line', (l) => { seen.push(JSON.parse(l)); wake2(); });
const waitFor = (pred, ms = HANG_MS) => new Promise((resolve) => {
  if (seen.find(pred)) return resolve(seen.find(pred));
  const timer = setTimeout(() => { wake2 = () => {}; resolve(undefined); }, ms);
  wake2 = () => { const m = seen.find(pred); if (m) { clearTimeout(timer); wake2 = () => {}; resolve(m); } };
});
const send = (m) => server.stdin.write(JSON.stringify(m) + '\n');
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {} };
send({ jsonrpc: '2.0', id: 'sub', method: 'subscriptions/listen', params: { _meta: meta,
  notifications: { toolsListChanged: true } } });
check(await waitFor((m) => m.method === 'notifications/subscriptions/acknowledged'),
  '2026: subscribed');
const ask = { ...meta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const answer = async (id, stage, reply) => {
  const fbArgs = { tool: T3, stage };
  send({ jsonrpc: '2.0', id: `${id}a`, method: 'tools/call', params: { _meta: ask,
    name: 'submit_tool_feedback', arguments: fbArgs } });
  const ir = (await waitFor((m) => m.id === `${id}a`))?.result;
  const form = ir?.inputRequests?.[stage];
  check(ir?.resultType === 'input_required' && form?.method === 'elicitation/create' &&
    form.params.requestedSchema.properties.reply?.type === 'string',
    `2026: ${stage}: the person is asked through a form`, JSON.stringify(ir));
  send({ jsonrpc: '2.0', id: `${id}b`, method: 'tools/call', params: { _meta: ask,
    name: 'submit_tool_feedback', arguments: fbArgs, requestState: ir?.requestState,
    inputResponses: { [stage]: { action: 'accept', content: { reply } } } } });
  return (await waitFor((m) => m.id === `${id}b`))?.result;
};
send({ jsonrpc: '2.0', id: 'nf', method: 'tools/call', params: { _meta: meta,
  name: 'submit_tool_feedback', arguments: { tool: T3, stage: 'output' } } });
const nf = (await waitFor((m) => m.id === 'nf'))?.result;
check(nf?.isError === true && /toolgen feedback/.test(JSON.stringify(nf)),
  '2026: a client without elicitation is refused, naming the command', JSON.stringify(nf));
check((await answer('o', 'output', 'yes'))?.structuredContent?.decision === 'OUTPUT_ACCEPTED',
  '2026: Stage 1 from the person\'s form');
check((await answer('d', 'decision', 'Approve'))?.structuredContent?.state === 'APPROVED',
  '2026: Stage 2 from the person\'s form');
send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: meta, name: 'promote_tool',
  arguments: { tool: T3 } } });
const p3 = await waitFor((m) => m.id === 1);
check(p3?.result?.isError === false, '2026: promote_tool', JSON.stringify(p3));
// 2026-07-28: generate_tool's open question is an input_required form; the retry with the
// person's answer generates the tool
const gArgs = { intent: 'size by day', data_file: 'data/tips.csv' };
send({ jsonrpc: '2.0', id: 'q1', method: 'tools/call', params: { _meta: ask,
  name: 'generate_tool', arguments: gArgs } });
const q1 = (await waitFor((m) => m.id === 'q1'))?.result;
const qf = q1?.inputRequests?.aggregate;
check(q1?.resultType === 'input_required' && qf?.method === 'elicitation/create' &&
  qf.params.requestedSchema.properties.reply?.enum?.includes('count'),
  '2026: generate_tool asks the open question through a form', JSON.stringify(q1));
send({ jsonrpc: '2.0', id: 'q2', method: 'tools/call', params: { _meta: ask,
  name: 'generate_tool', arguments: gArgs, requestState: q1?.requestState,
  inputResponses: { aggregate: { action: 'accept', content: { reply: 'count' } } } } });
const q2 = (await waitFor((m) => m.id === 'q2', HANG_MS))?.result;
check(q2?.isError === false && q2?.structuredContent?.tool === 'count_size_by_day',
  '2026: generated with the person\'s answer', JSON.stringify(q2).slice(0, 600));
const note = await waitFor((m) => m.method === 'notifications/tools/list_changed' &&
  m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'sub');
check(note !== undefined, '2026: list_changed on the subscription after the promotion');
send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: meta, name: T3,
  arguments: { file_path: 'data/tips.csv' } } });
const c3 = await waitFor((m) => m.id === 2);
check(c3?.result?.isError === false, '2026: the promoted tool is called', JSON.stringify(c3).slice(0, 300));
send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub' } });
server.stdin.end();
check(await new Promise((r) => server.on('close', r)) === 0, '2026: serve ends cleanly');

// over Streamable HTTP, without a restart: a fourth tool, approved on the command line, is
// promoted through promote_tool by a legacy client, which hears of it on its GET stream; a
// 2026-07-28 client hears of it on its subscriptions/listen stream; tools/list shows it
const T4 = 'min_total_bill_by_time';
tg('new', 'minimum total_bill by time', '--data', 'data/tips.csv');
tg('build', T4);
tg('stage', T4);
tg('feedback', T4, '--output', 'yes');
tg('feedback', T4, '--decision', 'Approve');
const web = spawn(TG, ['-C', REPO, 'serve', '--http', '127.0.0.1:0'],
  { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env } });
let log = '';
const url = await new Promise((resolve) => {
  web.stderr.on('data', (d) => { // read to the end: a full pipe would stall the server's log
    log += d;
    const m = log.match(/listening on (http:\/\/\S+\/mcp)/);
    if (m) resolve(m[1]);
  });
  web.on('close', () => resolve(undefined));
});
check(url !== undefined, 'HTTP: serve listens', log);
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
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const legacy = new Client({ name: 'workflow-test-http', version: '1.0.0' });
let heard = 0;
legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => { heard++; });
await legacy.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: async (u, init) => {
  const res = await fetch(u, init);
  if ((init?.method ?? 'GET') === 'GET' && res.status === 200) getOpen = true;
  return res;
} }));
check(await until(() => getOpen), 'HTTP: the legacy client\'s GET stream is open');
// the 2026-07-28 stream, read as it comes
const frames = [];
const listenAbort = new AbortController();
const listen = await fetch(url, { method: 'POST', signal: listenAbort.signal, headers: {
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 'web-sub', method: 'subscriptions/listen',
    params: { _meta: meta, notifications: { toolsListChanged: true } } }) });
(async () => {
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of listen.body) {
      buf += decoder.decode(chunk, { stream: true });
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const l of lines) if (l.startsWith('data:')) frames.push(JSON.parse(l.slice(5)));
    }
  } catch { /* aborted at the end */ }
})();
check(await until(() => frames.find((f) => f.method === 'notifications/subscriptions/acknowledged')),
  'HTTP 2026: subscribed');
const before4 = (await legacy.listTools()).tools.map((t) => t.name);
check(!before4.includes(T4), 'HTTP: not served before the promotion', before4.join(','));
const p4 = await legacy.callTool({ name: 'promote_tool', arguments: { tool: T4 } }, undefined,
  { timeout: HANG_MS });
check(!p4.isError && /^[0-9a-f]{40}$/.test(p4.structuredContent?.commit ?? ''),
  'HTTP: promote_tool commits', text(p4));
check(await until(() => heard > 0), 'HTTP: list_changed on the legacy client\'s GET stream');
check(await until(() => frames.find((f) => f.method === 'notifications/tools/list_changed' &&
  f.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'web-sub')),
  'HTTP 2026: list_changed on the listen stream', JSON.stringify(frames));
const after4 = (await legacy.listTools()).tools.map((t) => t.name);
check(after4.includes(T4), 'HTTP: tools/list shows the promoted tool without a restart',
  after4.join(','));
const c4 = await legacy.callTool({ name: T4, arguments: { file_path: 'data/tips.csv' } });
check(c4.isError === false, 'HTTP: the promoted tool is called', JSON.stringify(c4).slice(0, 300));
listenAbort.abort();
await legacy.close();
web.kill('SIGTERM');
check(await new Promise((r) => web.on('close', r)) === 0, 'HTTP: serve ends cleanly');
check(!/Sanitizer/.test(log), 'HTTP: no sanitizer report', log.slice(-2000));

finish();
