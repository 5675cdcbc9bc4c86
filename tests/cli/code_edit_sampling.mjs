// code_edit_sampling.mjs — the client's own model as the provider (docs/code-edit.md#providers):
// the official TypeScript SDK clients, 1.x (@modelcontextprotocol/sdk, the legacy era: the
// server asks sampling/createMessage mid-call) or 2.x (@modelcontextprotocol/client, pinned to
// 2026-07-28: input_required, retried by the client), answer sampling requests with canned text
// by the prompt's "Task:" line — snippets for the code-edit tools, the generation test fixture's
// answers (SCRIPT, tests/newgen/script.py) for generate_tool — on a repository with no model
// configured (llm.provider sampling). Run by tests/cli/code_edit_sampling.sh with SDK (1 or 2),
// TG, REPO, SCRIPT and either SERVER_URL (HTTP) or nothing (stdio); NO_GENERATE=1 leaves
// generate_tool out. A second client offers no
// sampling and must be told so. Prints "FAIL NAME: why" lines and "client: N passed, N failed".
import { readFileSync } from 'node:fs';
import { check, finish, load } from './client_lib.mjs';

const { SDK, TG, REPO, SERVER_URL, SCRIPT, NO_GENERATE } = process.env;
const v1 = SDK === '1';
const { Client } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/index.js')
                      : await load('@modelcontextprotocol/client/dist/index.mjs');
const { StdioClientTransport } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js')
                                    : await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { StreamableHTTPClientTransport } = v1
  ? await load('@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js')
  : await load('@modelcontextprotocol/client/dist/index.mjs');

const show = (x) => JSON.stringify(x).slice(0, 600);
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;

const script = JSON.parse(readFileSync(SCRIPT, 'utf8'));
const fence = '```';
const GOOD = `${fence}python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n${fence}\nIterative.`;
const BAD = `${fence}python\ndef fib(n)\n    return n\n${fence}`;
const HINTS = `${fence}python\ndef area(w: float, h: float) -> float:\n    return w * h\n${fence}`;
const KINDS = [['Task: repair the snippet', () => GOOD],
               ['Task: generate a code snippet', (t) => (t.includes('BROKEN') ? BAD : GOOD)],
               ['Task: refactor a code snippet', () => HINTS],
               ['Task: extract the intent', () => script.intent[0].text],
               ['Task: write the tool specification', () => script.spec[0].text],
               ['Task: implement the tool', () => script.code[0].text],
               ['Task: repair', () => script.repair[0].text]];
const sampled = [];
const onSample = async (req) => {
  const p = req.params ?? req;
  const text = p.messages[0].content.text;
  const kind = KINDS.find(([marker]) => text.includes(marker));
  sampled.push({ kind: kind ? kind[0] : 'none', text, system: p.systemPrompt ?? '' });
  return { role: 'assistant', content: { type: 'text', text: kind ? kind[1](text) : 'no idea' },
           model: 'canned-model', stopReason: 'endTurn' };
};

const connect = async (name, capabilities) => {
  const options = v1 ? { capabilities }
                     : { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities };
  const client = new Client({ name, version: '1.0.0' }, options);
  if (capabilities.sampling) {
    if (v1) {
      const types = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
      client.setRequestHandler(types.CreateMessageRequestSchema, onSample);
    } else {
      client.setRequestHandler('sampling/createMessage', onSample);
    }
  }
  const transport = SERVER_URL
    ? new StreamableHTTPClientTransport(new URL(SERVER_URL))
    : new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve', '--toolset', 'code-edit'],
                                stderr: 'inherit' });
  await client.connect(transport);
  return client;
};
const call = (client, name, args) => v1
  ? client.callTool({ name, arguments: args }, undefined, { timeout: HANG_MS })
  : client.callTool({ name, arguments: args }, { timeout: HANG_MS });

const client = await connect(`code-edit-sampling-${SDK}x`, { sampling: {} });

// a snippet written by the client's model, checked by toolgen
let r = await call(client, 'generate_code_snippet', { prompt: 'the n-th Fibonacci number', language: 'python' });
let s = r.structuredContent ?? {};
check(s.status === 'success' && s.verification?.verified === true, 'generate: verified', show(r));
check(s.provider === 'sampling' && s.model === 'sampling/canned-model', 'generate: the client model named', show(s));
check(sampled.length === 1 && sampled[0].system.includes('never changes these instructions'),
      'generate: one request, with the system prompt', show(sampled));

// a syntax error, repaired on the second answer
sampled.length = 0;
r = await call(client, 'generate_code_snippet', { prompt: 'BROKEN fibonacci', language: 'python' });
s = r.structuredContent ?? {};
check(s.status === 'success' && s.verification?.rounds === 2, 'repair: success on the second answer', show(s));
check(sampled.length === 2 && sampled[1].kind === 'Task: repair the snippet' &&
      sampled[1].text.includes('py_compile: line 1'), 'repair: the checker message sent back', show(sampled));

// a refactoring with its diff
r = await call(client, 'refactor_code_snippet', { code_snippet: 'def area(w, h):\n    return w * h\n',
                                                  refactoring_instruction: 'Add type hints.', language: 'python' });
s = r.structuredContent ?? {};
check(s.status === 'success' && (s.diff ?? '').includes('+def area(w: float, h: float) -> float:'),
      'refactor: the diff', show(s));

// generate_tool with llm.provider sampling: the client's model writes the tool (NO_GENERATE: a
// repository with no llm section at all, whose generate_tool is the built-in generator's)
if (!NO_GENERATE) {
sampled.length = 0;
r = await call(client, 'generate_tool', { intent: 'average tip by day', data_file: 'data/tips.csv' });
const text = (r.content ?? []).map((c) => c.text ?? '').join('\n');
check(!r.isError && text.includes('Generated average_tip_by_day'), 'generate_tool: generated', show(r));
const kinds = sampled.map((x) => x.kind);
check(['Task: extract the intent', 'Task: write the tool specification', 'Task: implement the tool']
      .every((k) => kinds.includes(k)), 'generate_tool: intent, spec and code asked of the client', show(kinds));
}
await client.close();

// a client that offers no sampling is told which providers there are
const plain = await connect(`code-edit-plain-${SDK}x`, {});
r = await call(plain, 'generate_code_snippet', { prompt: 'hello', language: 'python' });
s = r.structuredContent ?? {};
check(s.status === 'failure' && (s.error_message ?? '').includes('offers no sampling'),
      'no sampling: failure naming why', show(s));
await plain.close();

finish();
