// web_fetch.mjs — the web toolset's web_fetch (docs/web.md) through an official MCP TypeScript
// client: SDK=1 the 1.x client (@modelcontextprotocol/sdk), SDK=2 the 2.x client
// (@modelcontextprotocol/client, revision 2026-07-28), each over stdio against
// `toolgen -C REPO serve --toolset web --toolset code`, REPO allowing only 127.0.0.1:PORT (the
// loopback server web_server.py, at BASE). Then against LIMITED, which allows 2 requests a
// minute. Run by tests/cli/web_fetch.sh with TG, REPO, LIMITED, BASE, PORT, SDK.
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { check, finish, load } from './client_lib.mjs';

const { TG, REPO, LIMITED, BASE, PORT, SDK, ESCAPE } = process.env;
const [{ Client }, { StdioClientTransport }] = SDK === '2'
  ? await Promise.all([load('@modelcontextprotocol/client/dist/index.mjs'),
                       load('@modelcontextprotocol/client/dist/stdio.mjs')])
  : await Promise.all([load('@modelcontextprotocol/sdk/dist/esm/client/index.js'),
                       load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js')]);

const options = SDK === '2' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
const sc = (r) => r.structuredContent ?? {};
const text = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
// an error result: isError, its text "CODE: ErrorType: message" (structuredContent carries no
// error: web_fetch's output schema does not admit one, docs/mcp.md "Tool errors")
const refused = (r, code, type) => r.isError === true && text(r).startsWith(`${code}: ${type}: `);

async function connect(repo, label) {
  const c = new Client({ name: `toolgen-web-${label}-${SDK}`, version: '1.0.0' }, options);
  await c.connect(new StdioClientTransport({ command: TG,
    args: ['-C', repo, 'serve', '--dev', '--toolset', 'web', '--toolset', 'code'],
    stderr: 'inherit' }));
  return c;
}
const fetchUrl = (c, url, more = {}) => c.callTool({ name: 'web_fetch', arguments: { url, ...more } });

/** Formats: text, json, html; redirects on the host; what is refused and why. */
async function formats(c) {
  const { tools } = await c.listTools();
  const wf = tools.find((t) => t.name === 'web_fetch');
  check(wf && wf.inputSchema.required.includes('url') && wf.outputSchema,
    'tools/list offers web_fetch with its schemas', JSON.stringify(tools.map((t) => t.name)));
  check(wf && /Example/.test(wf.description ?? ''), 'its description teaches with an example');
  let r = await fetchUrl(c, `${BASE}/text`);
  check(!r.isError && sc(r).text === 'héllo, web\n' && sc(r).status === 200,
    'text from an allowed loopback host', JSON.stringify(r));
  r = await fetchUrl(c, `${BASE}/data.json`, { type: 'json' });
  check(!r.isError && JSON.stringify(sc(r).json) === '{"rows":[1,2,3],"name":"demo"}',
    'json parsed', JSON.stringify(sc(r)));
  r = await fetchUrl(c, `${BASE}/page.html`, { type: 'html' });
  const page = sc(r).text ?? '';
  check(!r.isError && sc(r).title === 'Fruit & prices' && page.includes('Apples cost 3') &&
        page.includes('- pears\n- plums'), 'html: title and text extracted', JSON.stringify(sc(r)));
  check(!/secret|color: red|enable scripts/.test(page), 'html: no script, style or noscript', page);
  check(JSON.stringify(sc(r).links) === JSON.stringify([
    { text: 'the data', url: `${BASE}/data.json` }, { text: 'more', url: 'https://example.org/more' }]),
  'html: links, absolute', JSON.stringify(sc(r).links));
  r = await fetchUrl(c, `${BASE}/redirect-here`, { type: 'json' });
  check(!r.isError && sc(r).url === `${BASE}/data.json` && sc(r).redirects?.length === 1,
    'a redirect to the same allowed host is followed', JSON.stringify(sc(r)));

  r = await fetchUrl(c, `http://localhost:${PORT}/text`);
  check(refused(r, 'FORBIDDEN', 'HostNotAllowed') && text(r).includes(`add 'localhost:${PORT}' to web.allow_hosts`),
    'a host not allowed is refused, naming the fix', text(r));
  r = await fetchUrl(c, 'http://127.0.0.1:1/text');
  check(refused(r, 'FORBIDDEN', 'HostNotAllowed'), 'another port of an allowed host is refused', text(r));
  r = await fetchUrl(c, `${BASE}/redirect-away`, { type: 'json' });
  check(refused(r, 'FORBIDDEN', 'RedirectNotAllowed') && text(r).includes(`localhost:${PORT}`),
    'a redirect to a host not allowed is not followed', text(r));
  r = await fetchUrl(c, `${BASE}/big`);
  check(refused(r, 'INVALID_INPUT', 'ResponseTooLarge') && text(r).includes('web.max_mb'),
    'the size cap', text(r));
  r = await fetchUrl(c, `${BASE}/bad.json`, { type: 'json' });
  check(refused(r, 'INVALID_INPUT', 'InvalidJSON') && text(r).includes('Service unavailable'),
    'bad JSON is a clear error quoting the start', text(r));
  r = await fetchUrl(c, `${BASE}/binary`);
  check(refused(r, 'INVALID_INPUT', 'NotText'), 'binary data as text is refused', text(r));
  r = await fetchUrl(c, `${BASE}/missing`);
  check(refused(r, 'NOT_FOUND', 'HTTPNotFound'), 'a 404 is NOT_FOUND', text(r));
  r = await fetchUrl(c, `${BASE}/redirect-loop`);
  check(refused(r, 'UPSTREAM_ERROR', 'TooManyRedirects'), 'a redirect loop ends', text(r));
  r = await fetchUrl(c, `ftp://127.0.0.1:${PORT}/x`);
  check(refused(r, 'INVALID_INPUT', 'InvalidURL'), 'not http(s)', text(r));
  r = await fetchUrl(c, `http://user:pw@127.0.0.1:${PORT}/text`);
  check(refused(r, 'INVALID_INPUT', 'InvalidURL') && !text(r).includes('pw@'),
    'credentials in the URL are refused and not echoed', text(r));
  r = await c.callTool({ name: 'web_fetch', arguments: { url: `${BASE}/text`, type: 'pdf' } });
  check(r.isError === true && /INVALID_INPUT/.test(text(r)), 'an unknown type', text(r));
}

/** type file saves into a session, where python_execute reads it. */
async function files(c) {
  let r = await fetchUrl(c, `${BASE}/data.csv`, { type: 'file' });
  check(refused(r, 'INVALID_INPUT', 'SessionRequired') && text(r).includes('create_session'),
    'file without a session says what to do', text(r));
  r = await c.callTool({ name: 'create_session', arguments: { runtime: 'python' } });
  const id = sc(r).session_id;
  check(!r.isError && id, 'create_session', JSON.stringify(r));
  r = await fetchUrl(c, `${BASE}/data.csv`, { type: 'file', session_id: id });
  check(!r.isError && sc(r).path === 'data.csv' && sc(r).size === 32, 'file saved into the session',
    JSON.stringify(r));
  r = await fetchUrl(c, `${BASE}/data.json`, { type: 'file', session_id: id, filename: 'rows.json' });
  check(!r.isError && sc(r).path === 'rows.json', 'file saved under the name given', JSON.stringify(r));
  r = await c.callTool({ name: 'python_execute', arguments: { session_id: id,
    code: "import csv, json\nrows = list(csv.DictReader(open('data.csv')))\n" +
          "print(sum(int(x['sales']) for x in rows), json.load(open('rows.json'))['rows'])" } });
  check(!r.isError && sc(r).stdout === '215 [1, 2, 3]\n', 'python_execute in the session reads them',
    JSON.stringify(sc(r)));
  // a link a program left under the name is replaced, never followed out of the sandbox
  r = await c.callTool({ name: 'python_execute', arguments: { session_id: id,
    code: `import os\nos.symlink(${JSON.stringify(ESCAPE)}, 'link.csv')` } });
  check(!r.isError, 'a program leaves a symbolic link', JSON.stringify(sc(r)));
  r = await fetchUrl(c, `${BASE}/data.csv`, { type: 'file', session_id: id, filename: 'link.csv' });
  check(!r.isError && sc(r).path === 'link.csv', 'a file saved over the link', text(r));
  r = await c.callTool({ name: 'python_execute', arguments: { session_id: id,
    code: "import os\nprint(os.path.islink('link.csv'), open('link.csv').read().count('\\n'))" } });
  check(!r.isError && sc(r).stdout === 'False 3\n', 'the link was replaced by the file', JSON.stringify(sc(r)));
  r = await fetchUrl(c, `${BASE}/data.csv`, { type: 'file', session_id: id, filename: '../x.csv' });
  check(r.isError === true && /INVALID_INPUT/.test(text(r)), 'a file name with a path is refused', text(r));
  r = await fetchUrl(c, `${BASE}/data.csv`, { type: 'file', session_id: 'sess_00000000000000000000000000000000' });
  check(refused(r, 'NOT_FOUND', 'SESSION_NOT_FOUND'), 'an unknown session', text(r));
  await c.callTool({ name: 'close_session', arguments: { session_id: id } });
}

/** LIMITED allows 2 requests a minute: the third is RATE_LIMITED, saying when to retry. */
async function rate(c) {
  const a = await fetchUrl(c, `${BASE}/text`), b = await fetchUrl(c, `${BASE}/text`);
  check(!a.isError && !b.isError, 'the first two requests of the minute', text(a) + text(b));
  const r = await fetchUrl(c, `${BASE}/text`);
  check(refused(r, 'RATE_LIMITED', 'RateLimited') && /try again in \d+ s/.test(text(r)) &&
        text(r).includes('web.requests_per_minute'), 'the third is RATE_LIMITED', text(r));
}

for (const [repo, label, fn] of [[REPO, 'main', async (c) => { await formats(c); await files(c); }],
  [LIMITED, 'limited', rate]]) {
  let c;
  try {
    c = await connect(repo, label);
    await fn(c);
  } catch (e) {
    check(false, `${label}: the session`, e.stack);
  } finally {
    await c?.close().catch(() => {});
  }
}
finish();
