// serve_tasks.mjs — the tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks) through
// `toolgen serve`, in raw JSON-RPC (the SDK clients do not speak the extension): over the
// server's stdio when SERVER_URL is empty, else over Streamable HTTP at SERVER_URL (with the
// Mcp-Method / Mcp-Name headers a client sends). On the conformance fixtures: a long call
// becomes a task that is polled to its result, cancelled (its process stops), asks the user
// through input_required and tasks/update (one answer at a time), asks before it starts
// (task.ask_first), fails on a protocol error; the extension's gates and errors.
// Run from the repository root by tests/cli/serve_tasks.sh with TG (toolgen), REPO (a copy of
// tests/mcp/conformance-repo), SERVER_URL. Prints "FAIL NAME: why" lines and
// "client: N passed, N failed" last; exits 1 on a failure.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { check, finish } from './client_lib.mjs';

const { TG, REPO, SERVER_URL } = process.env;
const EXT = 'io.modelcontextprotocol/tasks';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the transport: one request, its reply ------------------------------------------------------
let nextId = 1;
let send, close;
if (SERVER_URL) {
  send = async (msg) => {
    const p = msg.params ?? {};
    const name = p.name ?? p.taskId;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': msg.method, ...(name ? { 'mcp-name': name } : {}) };
    const res = await fetch(SERVER_URL, { method: 'POST', headers, body: JSON.stringify(msg) });
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
      return JSON.parse(text);
    for (const line of text.split('\n'))
      if (line.startsWith('data: ') && line.length > 6) {
        const m = JSON.parse(line.slice(6));
        if (m.id === msg.id) return m;
      }
    return null;
  };
  close = async () => {};
} else {
  const server = spawn(TG, ['-C', REPO, 'serve', '--dev'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  createInterface({ input: server.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    const w = waiting.get(m.id);
    if (w) { waiting.delete(m.id); w(m); }
  });
  send = (msg) => new Promise((resolve) => {
    waiting.set(msg.id, resolve);
    server.stdin.write(JSON.stringify(msg) + '\n');
  });
  close = async () => { server.stdin.end(); await new Promise((r) => server.on('exit', r)); };
}
const caps = (extra = {}) => ({ elicitation: {}, extensions: { [EXT]: {} }, ...extra });
const rpc = (method, params = {}, c = caps()) => send({ jsonrpc: '2.0', id: nextId++, method,
  params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': c } } });
const call = (name, args = {}, extra = {}, c = caps()) =>
  rpc('tools/call', { name, arguments: args, ...extra }, c);
const get = (taskId, c) => rpc('tasks/get', { taskId }, c);
const until = async (taskId, done, ms = 20000) => {
  const t0 = Date.now();
  for (;;) {
    const r = (await get(taskId)).result;
    if (done(r) || Date.now() - t0 > ms) return r;
    await sleep(100);
  }
};
const terminal = (r) => ['completed', 'failed', 'cancelled'].includes(r?.status);

// ---- discovery and tools/list -------------------------------------------------------------------
let r = await rpc('server/discover');
check(r.result?.capabilities?.extensions?.[EXT] !== undefined, 'server/discover offers the extension',
  JSON.stringify(r.result?.capabilities));
r = await rpc('tools/list');
const tools = Object.fromEntries((r.result?.tools ?? []).map((t) => [t.name, t]));
check(tools.slow_compute?.execution?.taskSupport === 'optional', 'slow_compute: taskSupport optional');
check(tools.failing_job?.execution?.taskSupport === 'required', 'failing_job: taskSupport required');
check(tools.greet && !tools.greet.execution, 'greet: never a task');
for (const w of ['generate_tool', 'run_staged_tool', 'reject_tool'])
  check(tools[w]?.execution?.taskSupport === 'optional', `the workflow's ${w}: taskSupport optional`);

// ---- a long call: a task, polled to its result --------------------------------------------------
r = await call('slow_compute', { seconds: 1, label: 'poll' });
const created = r.result;
check(created?.resultType === 'task' && /^[0-9a-f]{32}$/.test(created.taskId ?? ''),
  'a task-supporting tool answers with a CreateTaskResult', JSON.stringify(r));
check(created?.status === 'working' && created.ttlMs > 0 && created.pollIntervalMs > 0 &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(created.createdAt ?? ''), 'its fields',
  JSON.stringify(created));
r = await get(created.taskId);
check(r.result?.status === 'working' && !('result' in r.result), 'working, no result yet',
  JSON.stringify(r));
let t = await until(created.taskId, terminal);
check(t?.status === 'completed' && t.result?.structuredContent?.text === 'Computed poll after 1 s' &&
  t.resultType === 'complete' && !('resultType' in t.result), 'polled to its inlined result',
  JSON.stringify(t));
r = await call('slow_compute', { seconds: 0 }, {}, { elicitation: {} });
check(r.result?.resultType === 'complete' && r.result.structuredContent?.text === 'Computed result after 0 s',
  'a client without the extension gets the plain result', JSON.stringify(r));

// ---- cancellation: the task settles cancelled and its process stops ------------------------------
r = await call('slow_compute', { seconds: 60, label: 'cancel' });
const long = r.result?.taskId;
await sleep(300);
const t0 = Date.now();
r = await rpc('tasks/cancel', { taskId: long });
check(r.result?.resultType === 'complete' && !('status' in r.result), 'tasks/cancel acks',
  JSON.stringify(r));
t = (await get(long)).result;
check(t?.status === 'cancelled', 'cancelled at once', JSON.stringify(t));
r = await rpc('tasks/cancel', { taskId: long });
check(r.result?.resultType === 'complete', 'cancelling again is a no-op', JSON.stringify(r));
// the workers are free again: another task completes soon after (not after the 60 s sleep)
r = await call('slow_compute', { seconds: 0, label: 'after' });
t = await until(r.result?.taskId, terminal, 15000);
check(t?.status === 'completed' && Date.now() - t0 < 15000, 'the cancelled run stopped',
  JSON.stringify(t));

// ---- a workflow tool as a task (its error, quickly: no such staged tool) --------------------------
r = await call('run_staged_tool', { tool: 'no_such_tool' });
t = await until(r.result?.taskId, terminal);
check(t?.status === 'completed' && t.result?.isError === true &&
  /no_such_tool/.test(JSON.stringify(t.result.content)), 'run_staged_tool ran as a task',
  JSON.stringify(t));

// ---- a tool error completes the task; a protocol error fails it ----------------------------------
r = await call('failing_job');
t = await until(r.result?.taskId, terminal);
check(t?.status === 'completed' && t.result?.isError === true, 'a tool error: completed, isError',
  JSON.stringify(t));
r = await call('protocol_error_job', {}, {}, caps());
t = await until(r.result?.taskId, terminal);
check(t?.status === 'failed' && t.error?.code === -32021 && !('result' in t),
  'a JSON-RPC error: failed, the error inlined', JSON.stringify(t));

// ---- questions: input_required, answered one at a time through tasks/update ----------------------
r = await call('multi_input');
const asks = r.result?.taskId;
t = await until(asks, (x) => x?.status === 'input_required');
const keys = Object.keys(t?.inputRequests ?? {}).sort();
check(keys.join() === 'first,second' && t.inputRequests.first.method === 'elicitation/create',
  'input_required with both questions', JSON.stringify(t));
r = await rpc('tasks/update', { taskId: asks, inputResponses:
  { first: { action: 'accept', content: { name: 'one', confirm: true } } } });
check(r.result?.resultType === 'complete' && !('status' in r.result), 'tasks/update acks',
  JSON.stringify(r));
t = (await get(asks)).result;
check(t?.status === 'input_required' && Object.keys(t.inputRequests ?? {}).join() === 'second',
  'the answered question leaves, the other stays', JSON.stringify(t));
await rpc('tasks/update', { taskId: asks, inputResponses:
  { second: { action: 'accept', content: { name: 'two', confirm: true } } } });
t = await until(asks, terminal);
check(t?.status === 'completed' && t.result?.structuredContent?.text === 'first: one, second: two',
  'the task goes on with every answer', JSON.stringify(t));
check(!('requestState' in t), 'no requestState on the task');

// ---- ask first, then a task (task.ask_first) -------------------------------------------------------
r = await call('test_tool_with_task');
check(r.result?.resultType === 'input_required' && !('taskId' in r.result),
  'ask_first: the call asks before a task exists', JSON.stringify(r));
r = await call('test_tool_with_task', {}, { requestState: r.result?.requestState,
  inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } } });
check(r.result?.resultType === 'task' && !('requestState' in r.result), 'the retry is a task',
  JSON.stringify(r));
t = await until(r.result?.taskId, terminal);
check(t?.result?.structuredContent?.text === 'Hello, Ada!', 'the task used the answer',
  JSON.stringify(t));

// ---- the gates and errors --------------------------------------------------------------------------
r = await call('failing_job', {}, {}, { elicitation: {} });
check(r.error?.code === -32021 &&
  r.error.data?.requiredCapabilities?.extensions?.[EXT] !== undefined,
  'a required task tool refuses a client without the extension', JSON.stringify(r));
r = await get(created.taskId, { elicitation: {} });
check(r.error?.code === -32021, 'tasks/get needs the extension', JSON.stringify(r));
r = await get('0123456789abcdef0123456789abcdef');
check(r.error?.code === -32602, 'an unknown task: -32602', JSON.stringify(r));
for (const m of ['tasks/result', 'tasks/list']) {
  r = await rpc(m, { taskId: created.taskId });
  check(r.error?.code === -32601, `${m} does not exist`, JSON.stringify(r));
}
r = await call('greet', { name: 'you' }, { task: { ttl: 1000 } });
check(r.result?.resultType === 'complete' && r.result.content?.[0]?.text === 'Hello, you!',
  'a plain tool stays plain, whatever the request hints', JSON.stringify(r));

await close();
finish();
