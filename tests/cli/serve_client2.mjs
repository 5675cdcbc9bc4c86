// serve_client2.mjs — the official TypeScript client 2.x (@modelcontextprotocol/client, pinned
// to protocol revision 2026-07-28) drives `toolgen serve --dev` over stdio: server/discover, every
// tools/list, prompts/list and resources/list page, every example tool with its example input
// (structuredContent validated against outputSchema, by the client and again with Ajv), a tool
// that asks (the client answers input_required through its elicitation handler and retries), a
// long call that sends progress and is cancelled, and a change to the tool set while connected
// (the client's listChanged handler, over subscriptions/listen).
// Run from the repository root by tests/cli/serve_client2.sh with TG, REPO (a copy of this
// repository with two extra tools: count_column, which asks, and slow_tool, which runs until
// killed), SPARE (a tool folder to add while connected), GOLDEN, SERVICE_VARS (tests/lib.sh's start_services). Prints
// "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { cpSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { check, finish, npm } from './client_lib.mjs';

const pkg = (p) => import(pathToFileURL(`${npm}/@modelcontextprotocol/client/dist/${p}`).href);
const { Client } = await pkg('index.mjs');
const { StdioClientTransport, getDefaultEnvironment } = await pkg('stdio.mjs');
const require = createRequire(`${npm}/`);
const Ajv2020 = require('ajv/dist/2020.js').default;

const { TG, REPO, SPARE } = process.env;
// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
const withTimeout = (p, ms, what) => Promise.race([p, new Promise((_, no) =>
  setTimeout(() => no(new Error(`timed out: ${what}`)), ms))]);

let changed = [];
let wakeChanged = () => {};
const client = new Client({ name: 'toolgen-test-2x', version: '1.0.0' }, {
  versionNegotiation: { mode: { pin: '2026-07-28' } },
  capabilities: { elicitation: { form: {} } },
  listChanged: { tools: { onChanged: (err, tools) => { changed.push(err ? 'error' : tools.map((t) => t.name)); wakeChanged(); } } },
});
const asked = [];
client.setRequestHandler('elicitation/create', async (req) => {
  const params = req.params ?? req;
  asked.push(params.message);
  const key = Object.keys(params.requestedSchema.properties)[0];
  return { action: 'accept', content: { [key]: key === 'column' ? 'b' : true } };
});
// The server's environment: the SDK's default, and the variables SERVICE_VARS names (the http
// tools' origin overrides and credentials, tests/examples/services.py).
const serverEnv = Object.fromEntries([...Object.entries(getDefaultEnvironment()), ...(process.env.SERVICE_VARS || '')
  .split(/\s+/).filter((k) => k && process.env[k] !== undefined).map((k) => [k, process.env[k]])]);
const transport = new StdioClientTransport({ command: TG,
  args: ['-C', REPO, 'serve', '--dev', '--page-size', '2', '--progress-ms', '200'], env: serverEnv,
  stderr: 'inherit' });

try {
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'toolgen', 'serverInfo', JSON.stringify(client.getServerVersion()));
  check(client.getServerCapabilities()?.prompts !== undefined, 'prompts capability');

  const all = async (fn, key) => {
    const out = [];
    let cursor, pages = 0;
    do {
      const page = await fn(cursor ? { cursor } : {});
      out.push(...page[key]);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 200);
    return out;
  };
  const tools = await all((p) => client.listTools(p), 'tools');
  const names = tools.map((t) => t.name);
  check(names.includes('count_column') && names.includes('slow_tool') && names.length >= 8,
    'every tools/list page', names.join(','));
  check(JSON.stringify(names) === JSON.stringify([...names].sort()), 'sorted by name');
  const prompts = await all((p) => client.listPrompts(p), 'prompts');
  check(prompts.some((p) => p.name === 'analyze_dataset'), 'every prompts/list page', prompts.map((p) => p.name).join(','));
  const got = await client.getPrompt({ name: 'analyze_dataset', arguments: { file: 'data/iris.csv' } });
  check(/data\/iris\.csv/.test(got.messages[0].content.text), 'prompts/get fills the template');
  const comp = await client.complete({ ref: { type: 'ref/prompt', name: 'review_tool' },
    argument: { name: 'tool', value: 'csv' } });
  check(JSON.stringify(comp.completion.values) === '["csv_column_stats"]', 'completion/complete', JSON.stringify(comp));
  const resources = await all((p) => client.listResources(p), 'resources');
  check(resources.length === 3 * tools.length + 1, 'every resources/list page', `${resources.length}`);

  // every example tool with its example input
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const golden = (process.env.GOLDEN || '').split('\n').filter(Boolean);
  check(golden.length >= 6, 'golden requests found', `${golden.length}`);
  for (const file of golden) {
    const { params } = JSON.parse(readFileSync(file, 'utf8'));
    const tool = tools.find((t) => t.name === params.name);
    const res = await client.callTool({ name: params.name, arguments: params.arguments });
    check(res.isError === false, `${params.name}: succeeds`, JSON.stringify(res).slice(0, 400));
    const validate = ajv.compile(tool.outputSchema);
    check(validate(res.structuredContent), `${params.name}: structuredContent fits outputSchema`,
      JSON.stringify(validate.errors));
  }

  // a tool that asks: input_required, answered by the elicitation handler, retried by the client
  const asking = await client.callTool({ name: 'count_column', arguments: { file_path: 'data/x.csv' } });
  check(asking.isError === false && asking.structuredContent?.column === 'b' && asking.structuredContent?.count === 2,
    'a tool that asks completes through input_required', JSON.stringify(asking).slice(0, 400));
  check(asked.length === 2 && /Which column/.test(asked[0]), 'the client was asked twice', JSON.stringify(asked));

  // a long call: progress arrives, then the client cancels it
  const abort = new AbortController();
  let progress = 0;
  const slow = client.callTool({ name: 'slow_tool', arguments: { file_path: 'data/x.csv' } }, {
    signal: abort.signal, resetTimeoutOnProgress: true,
    onprogress: () => { progress++; if (progress === 2) abort.abort('enough'); },
  });
  let outcome = 'resolved';
  try { await withTimeout(slow, HANG_MS, 'the slow call'); } catch (e) { outcome = String(e?.message ?? e); }
  check(progress >= 2, 'progress notifications of a long call', `${progress}`);
  check(outcome !== 'resolved' && !/timed out/.test(outcome), 'the cancelled call rejects', outcome);
  const after = await client.callTool({ name: 'preview_file_lines', arguments: { file_path: 'data/x.csv', lines: 1 } });
  check(after.isError === false, 'the server serves on after the cancellation');

  // the tool set changes while connected
  const before = changed.length;
  const seen = new Promise((resolve) => { wakeChanged = () => { if (changed.length > before) resolve(); }; });
  cpSync(SPARE, `${REPO}/manifests/zz_added`, { recursive: true });
  try { await withTimeout(seen, HANG_MS, 'listChanged'); } catch { /* checked below */ }
  const last = changed[changed.length - 1];
  check(Array.isArray(last) && last.includes('zz_added'), 'the listChanged handler sees the new tool',
    JSON.stringify(changed));
} catch (e) {
  check(false, 'the session', e?.stack ?? String(e));
} finally {
  await client.close();
}
finish();
