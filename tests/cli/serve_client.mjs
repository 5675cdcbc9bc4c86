// serve_client.mjs — the official MCP TypeScript SDK (1.x, legacy era) drives `toolgen serve
// --dev` over stdio, or over Streamable HTTP when SERVER_URL is set: initialize, every tools/list page, every example tool with its example
// input (structuredContent validated against outputSchema), and calls that must fail.
//
// Run from the repository root by tests/cli/serve.sh with the environment: TG (toolgen), SERVER_CMD (a shell command
// that starts the server; it may tee its stdout), GOLDEN (newline-separated golden request
// files), SERVICE_VARS (the variables of the http tools' stand-in services, tests/lib.sh's
// start_services), and SLOW_CMD (or over HTTP SLOW_URL): a
// server whose slow_tool runs until killed and fast_tool answers, for the cancellation. Prints "ok NAME" / "FAIL NAME: why" lines
// and "client: N passed, N failed" last; exits 1 on any failure.
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { check, finish, load, npm } from './client_lib.mjs';

// The peers live in tests/npm (make test-deps), not beside this script: load them from there.
const sdk = (p) => load(`@modelcontextprotocol/sdk/dist/esm/${p}`);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');
const require = createRequire(`${npm}/`);
const Ajv2020 = require('ajv/dist/2020.js').default;

// A failed call carries {"error": {...}} as its last text block; structuredContent only when
// the outputSchema admits it, which the example tools' schemas do not.
const errorOf = (res) => {
  check(res.structuredContent === undefined, 'no structuredContent on an error result');
  try { return JSON.parse(res.content[res.content.length - 1].text).error; } catch { return undefined; }
};

// Over Streamable HTTP (SERVER_URL set, by tests/cli/serve_http.sh) every JSON-RPC message of
// every response body (JSON, or each SSE data line) is appended to MESSAGES for validation.
const recordingFetch = async (url, init) => {
  const res = await fetch(url, init);
  const type = res.headers.get('content-type') || '';
  if (!process.env.MESSAGES || !(type.startsWith('application/json') || type.startsWith('text/event-stream')))
    return res;
  const body = await res.text();
  const lines = type.startsWith('text/event-stream')
    ? body.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    : [body];
  for (const l of lines.filter(Boolean))
    appendFileSync(process.env.MESSAGES, JSON.stringify(JSON.parse(l)) + '\n');
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
};
// The server's environment: the SDK's default, and the variables SERVICE_VARS names (the http
// tools' origin overrides and credentials, tests/examples/services.py).
const serverEnv = (base) => Object.fromEntries([...Object.entries(base), ...(process.env.SERVICE_VARS || '')
  .split(/\s+/).filter((k) => k && process.env[k] !== undefined).map((k) => [k, process.env[k]])]);
const transport = process.env.SERVER_URL
  ? new (await sdk('client/streamableHttp.js')).StreamableHTTPClientTransport(
      new URL(process.env.SERVER_URL), { fetch: recordingFetch })
  : new StdioClientTransport({
      command: 'sh',
      args: ['-c', process.env.SERVER_CMD],
      env: serverEnv(getDefaultEnvironment()),
      stderr: 'inherit',
    });
const client = new Client({ name: 'toolgen-test', version: '1.0.0' });

try {
  await client.connect(transport);
  const info = client.getServerVersion();
  check(info?.name === 'toolgen', 'serverInfo.name', JSON.stringify(info));
  check(client.getServerCapabilities()?.tools !== undefined, 'tools capability');

  // every page, in order, with the page size the server was started with (2)
  const tools = [];
  let cursor, pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  check(tools.length >= 6, 'all tools listed', `${tools.length}`);
  check(pages === Math.ceil(tools.length / 2), 'pages of two', `${pages} pages`);
  const names = tools.map((t) => t.name);
  check(JSON.stringify(names) === JSON.stringify([...names].sort()), 'sorted by name', names.join(','));
  for (const t of tools) {
    const emitted = JSON.parse(readFileSync(`generated/${t.name}/mcp.tool.json`, 'utf8'));
    check(isDeepStrictEqual(t, emitted), `${t.name}: as generated/${t.name}/mcp.tool.json`,
          JSON.stringify(t).slice(0, 300));
  }

  // resources: every page; each reads back as the generated/ file it names
  const resources = [];
  cursor = undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor && resources.length < 1000);
  check(resources.length === 3 * tools.length + 1, 'SKILL.md, a reference page and two schemas per tool',
        `${resources.length}`);
  for (const r of resources) {
    const read = await client.readResource({ uri: r.uri });
    const path = 'generated/' + r.uri.slice('toolgen://generated/'.length);
    check(read.contents[0]?.text === readFileSync(path, 'utf8') && read.contents[0]?.mimeType === r.mimeType,
          `${r.uri} reads as ${path}`);
  }
  const templates = await client.listResourceTemplates();
  check(templates.resourceTemplates.length === 3, 'resource templates');

  // every example tool with its example input
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const golden = (process.env.GOLDEN || '').split('\n').filter(Boolean);
  check(golden.length >= 6, 'golden requests found', `${golden.length}`);
  for (const file of golden) {
    const { params } = JSON.parse(readFileSync(file, 'utf8'));
    const tool = tools.find((t) => t.name === params.name);
    const res = await client.callTool({ name: params.name, arguments: params.arguments });
    check(res.isError === false, `${file}: succeeds`, JSON.stringify(res).slice(0, 600));
    const validate = ajv.compile(tool.outputSchema);
    check(validate(res.structuredContent), `${file}: structuredContent fits outputSchema`,
          JSON.stringify(validate.errors));
    const json = res.content.filter((c) => c.type === 'text').map((c) => { try { return JSON.parse(c.text); } catch { return undefined; } });
    check(json.some((j) => isDeepStrictEqual(j, res.structuredContent)),
          `${file}: a text block carries the serialised JSON`);
  }

  // a bad call: a tool error naming the argument, not a protocol error
  const bad = await client.callTool({ name: 'preview_file_lines', arguments: { file_path: 42, nope: 1 } });
  check(bad.isError === true, 'bad arguments: isError');
  const pointers = (errorOf(bad)?.problems || []).map((p) => p.pointer).sort();
  check(JSON.stringify(pointers) === '["/file_path","/nope"]', 'bad arguments: JSON Pointers', JSON.stringify(pointers));

  // a file outside the data directories: refused by the sandbox, with guidance
  const outside = await client.callTool({ name: 'preview_file_lines', arguments: { file_path: '/etc/passwd' } });
  check(outside.isError === true && typeof errorOf(outside)?.guidance === 'object',
        'path outside the data directories: isError with guidance', JSON.stringify(outside).slice(0, 300));

  // an unknown tool is a protocol error
  let unknown;
  try { await client.callTool({ name: 'no_such_tool', arguments: {} }); } catch (e) { unknown = e; }
  check(unknown?.code === -32602, 'unknown tool: -32602', String(unknown));

  // progress: the server reports the start of a call that asks for progress
  let ticks = 0;
  const chart = { name: 'bar_chart_by_group', arguments: { file_path: 'data/tips.csv', category_column: 'day' } };
  const withProgress = await client.callTool(chart, undefined, { onprogress: () => { ticks++; }, resetTimeoutOnProgress: true });
  check(withProgress.isError === false && ticks >= 1, 'progress notifications for a call', `${ticks} ticks`);

  // the files the call wrote: linked, readable as resources, the chart also as an image
  const links = withProgress.content.filter((c) => c.type === 'resource_link');
  check(links.length === 3, 'a resource_link per file written', JSON.stringify(links));
  const png = links.find((l) => l.name === 'bar_chart.png');
  const readPng = png && await client.readResource({ uri: png.uri });
  check(readPng && Buffer.from(readPng.contents[0].blob, 'base64').subarray(1, 4).toString() === 'PNG',
        'the chart reads back as a PNG blob');
  const csv = links.find((l) => l.name === 'bar_chart_data.csv');
  const readCsv = csv && await client.readResource({ uri: csv.uri });
  check(readCsv?.contents[0]?.text?.startsWith('day,'), 'the CSV reads back as text');
  check(withProgress.content.some((c) => c.type === 'image' && c.mimeType === 'image/png'), 'the chart as image content');

  // cancellation: the SDK sends notifications/cancelled when the signal aborts. Aborted at the
  // server's first progress notification ("started": the call is running) — an event, since a
  // call through a warm pool worker may well finish within any fixed delay.
  const abort = new AbortController();
  let cancelled;
  try {
    await client.callTool(chart, undefined, { signal: abort.signal, onprogress: () => abort.abort('test') });
  } catch (e) { cancelled = e; }
  check(cancelled !== undefined, 'an aborted call rejects', String(cancelled));
  const after = await client.callTool({ name: 'preview_file_lines', arguments: { file_path: 'data/iris.csv' } });
  check(after.isError === false, 'the next call is served after a cancellation');

  // The call whose log line must say "cancelled" runs until it is killed (SLOW_URL or SLOW_CMD:
  // a server on a repository whose slow_tool never ends), so the cancellation surely reaches it
  // while it runs — the chart above may finish first. Its stream is read live (no
  // recordingFetch, which reads a body to its end), so the abort comes at the first progress.
  if (process.env.SLOW_URL || process.env.SLOW_CMD) {
    const slowTransport = process.env.SLOW_URL
      ? new (await sdk('client/streamableHttp.js')).StreamableHTTPClientTransport(new URL(process.env.SLOW_URL))
      : new StdioClientTransport({ command: 'sh', args: ['-c', process.env.SLOW_CMD], stderr: 'inherit' });
    const slow = new Client({ name: 'toolgen-test-cancel', version: '1.0.0' });
    await slow.connect(slowTransport);
    const ac = new AbortController();
    let aborted;
    try {
      await slow.callTool({ name: 'slow_tool', arguments: { file_path: 'data/x.csv' } }, undefined,
        { signal: ac.signal, onprogress: () => ac.abort('test') });
    } catch (e) { aborted = e; }
    check(String(aborted).includes('test'), 'a running call aborted at its first progress rejects', String(aborted));
    const next = await slow.callTool({ name: 'fast_tool', arguments: { file_path: 'data/x.csv' } });
    check(next.isError === false, 'the next call on that server is served after the cancellation');
    await slow.close();
  }

  check((await client.ping()) !== undefined, 'ping');
  await client.setLoggingLevel('warning');
  check(true, 'logging/setLevel');
} catch (e) {
  check(false, 'client session', e?.stack || String(e));
} finally {
  await client.close();
}
finish();
