// serve_mrtr.mjs — a tool that asks (toolgen_helpers.ask) through `toolgen serve`, both eras:
//   2026-07-28: raw JSON-RPC over the server's stdio (no 2026 SDK client is needed to speak
//     it): input_required with an elicitation form and a signed requestState, the retries with
//     inputResponses, a tampered, foreign, mismatched or garbage state refused with -32602, a
//     declined question a tool error, a client without the elicitation capability -32021;
//   legacy: the official TypeScript SDK 1.x client answers the server's elicitation/create
//     requests with its request handler, and the call completes.
// Run from the repository root by tests/cli/serve_mrtr.sh with TG (toolgen), REPO (a repository
// holding the count_column tool), OUT (a file receiving every line the 2026 server wrote).
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { check, finish, load } from './client_lib.mjs';

const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ElicitRequestSchema } = await sdk('types.js');

const { TG, REPO, OUT } = process.env;

// ---- 2026-07-28, raw --------------------------------------------------------------------------
const server = spawn(TG, ['-C', REPO, 'serve', '--dev'], { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map();
createInterface({ input: server.stdout }).on('line', (line) => {
  appendFileSync(OUT, line + '\n');
  const msg = JSON.parse(line);
  const w = waiting.get(msg.id);
  if (w) { waiting.delete(msg.id); w(msg); }
});
let nextId = 1;
const meta = (caps) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps });
const rpc = (method, params) => new Promise((resolve) => {
  const id = nextId++;
  waiting.set(id, resolve);
  server.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
});
const args = { file_path: 'data/x.csv' };
const call = (extra = {}, caps = { elicitation: {} }, a = args) =>
  rpc('tools/call', { _meta: meta(caps), name: 'count_column', arguments: a, ...extra });

let r = await call();
const ir = r.result;
check(ir?.resultType === 'input_required', 'the first round asks', JSON.stringify(r));
const form = ir?.inputRequests?.column;
check(form?.method === 'elicitation/create' && form.params.mode === 'form', 'an elicitation form');
check(JSON.stringify(form?.params.requestedSchema) === JSON.stringify({ type: 'object',
  properties: { column: { type: 'string', title: 'Column', enum: ['a', 'b'] } }, required: ['column'] }),
  'the form holds the tool\'s schema', JSON.stringify(form?.params.requestedSchema));
check(/^tg1\.[0-9a-f]{64}\.[0-9a-f]+$/.test(ir?.requestState ?? ''), 'a signed requestState');
const state1 = ir.requestState;
const answer1 = { column: { action: 'accept', content: { column: 'b' } } };

// tampering: one digit of the payload, one of the MAC; another tool's arguments; garbage
const flip = (s, i) => s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1);
for (const [name, state, a] of [
  ['a payload altered', flip(state1, state1.length - 3), args],
  ['a MAC altered', flip(state1, 10), args],
  ['other arguments', state1, { file_path: 'data/y.csv' }],
  ['garbage', 'hello', args],
]) {
  r = await call({ requestState: state, inputResponses: answer1 }, { elicitation: {} }, a);
  check(r.error?.code === -32602 && /requestState/.test(r.error.message), `refused: ${name}`,
    JSON.stringify(r));
}

// the second round: the answer to the first question, and the tool asks the next one
r = await call({ requestState: state1, inputResponses: answer1 });
check(r.result?.resultType === 'input_required' && r.result.inputRequests?.sure, 'the next question',
  JSON.stringify(r));
const state2 = r.result.requestState;
check(r.result.inputRequests?.sure?.params.requestedSchema.properties.sure.type === 'boolean',
  'a boolean question');
// an answer missing: asked again
r = await call({ requestState: state2, inputResponses: {} });
check(r.result?.resultType === 'input_required' && r.result.inputRequests?.sure, 'asked again');
// the last round: the result
r = await call({ requestState: state2, inputResponses: { sure: { action: 'accept', content: { sure: true } } } });
check(r.result?.resultType === 'complete' && r.result.isError === false &&
  r.result.structuredContent?.column === 'b' && r.result.structuredContent?.count === 2,
  'the call completes with the answers', JSON.stringify(r));
// declined
r = await call({ requestState: state1, inputResponses: { column: { action: 'decline' } } });
check(r.result?.isError === true && /declined the question/.test(r.result.content[0].text),
  'a declined question is a tool error', JSON.stringify(r));
// a client that cannot be asked: MissingRequiredClientCapabilityError naming elicitation
r = await call({}, {});
check(r.error?.code === -32021 && r.error.data?.requiredCapabilities?.elicitation !== undefined,
  'a client without elicitation gets -32021', JSON.stringify(r));
// the argument given: no question at all
r = await call({}, { elicitation: {} }, { file_path: 'data/x.csv', column: 'a' });
check(r.result?.resultType === 'complete' && r.result.structuredContent?.count === 3, 'no question needed');
server.stdin.end();
await new Promise((res) => server.on('close', res));

// foreign: a state from the server that just ended is refused by a new one
const server2 = spawn(TG, ['-C', REPO, 'serve', '--dev'], { stdio: ['pipe', 'pipe', 'inherit'] });
const line2 = new Promise((res) => createInterface({ input: server2.stdout }).once('line', res));
server2.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {
  _meta: meta({ elicitation: {} }), name: 'count_column', arguments: args, requestState: state1,
  inputResponses: answer1 } }) + '\n');
r = JSON.parse(await line2);
check(r.error?.code === -32602 && /another server or an earlier run/.test(r.error.message),
  'a state of another server is refused', JSON.stringify(r));

// ---- legacy: the SDK answers elicitation/create ------------------------------------------------
async function legacy(answer) {
  const transport = new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve', '--dev'],
    stderr: 'inherit' });
  const client = new Client({ name: 'toolgen-test', version: '1.0.0' },
    { capabilities: { elicitation: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return answer(req);
  });
  await client.connect(transport);
  const res = await client.callTool({ name: 'count_column', arguments: args });
  await client.close();
  return { res, asked };
}
let { res, asked } = await legacy((req) => {
  const key = Object.keys(req.params.requestedSchema.properties)[0];
  return { action: 'accept', content: { [key]: key === 'column' ? 'a' : true } };
});
check(asked.length === 2 && /Which column/.test(asked[0]), 'legacy: the SDK was asked twice', JSON.stringify(asked));
check(res.isError === false && res.structuredContent?.count === 3, 'legacy: the call completes',
  JSON.stringify(res));
({ res, asked } = await legacy(() => ({ action: 'cancel' })));
check(res.isError === true && /cancelled the question/.test(res.content[0].text),
  'legacy: a cancelled question is a tool error', JSON.stringify(res));

finish();
