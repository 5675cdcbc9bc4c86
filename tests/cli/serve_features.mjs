// serve_features.mjs — the official TypeScript SDK clients, 1.x (@modelcontextprotocol/sdk, the
// legacy era) or 2.x (@modelcontextprotocol/client, pinned to 2026-07-28), drive `toolgen serve
// --dev` on the conformance fixture repository (tests/mcp/conformance-repo) over stdio or
// Streamable HTTP, through what the SDK's own schemas check: audio, embedded resources and mixed
// content from the files a call wrote, prompts that embed a resource and an image, log messages
// from tool code (notifications/message at the level the client asked for: logging/setLevel in
// the legacy era, the request's _meta in 2026-07-28) and the progress a tool reports itself.
// Run from the repository root by tests/cli/serve_features.sh with SDK (1 or 2), TG, REPO and
// either SERVER_URL (HTTP) or nothing (stdio: the client starts `TG -C REPO serve --dev`).
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { pathToFileURL } from 'node:url';

const npm = `${process.cwd()}/tests/npm/node_modules`;
const { SDK, TG, REPO, SERVER_URL } = process.env;
const load = (p) => import(pathToFileURL(`${npm}/${p}`).href);
const v1 = SDK === '1';
const { Client } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/index.js')
                      : await load('@modelcontextprotocol/client/dist/index.mjs');
const { StdioClientTransport } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js')
                                    : await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { StreamableHTTPClientTransport } = v1
  ? await load('@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js')
  : await load('@modelcontextprotocol/client/dist/index.mjs');

let pass = 0, fail = 0;
const check = (cond, name, why = '') => {
  if (cond) { pass++; } else { fail++; console.log(`FAIL ${name}${why ? ': ' + why : ''}`); }
};
const show = (x) => JSON.stringify(x).slice(0, 400);

const options = v1 ? { capabilities: {} }
                   : { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: {} };
const client = new Client({ name: `toolgen-features-${SDK}x`, version: '1.0.0' }, options);
const transport = SERVER_URL
  ? new StreamableHTTPClientTransport(new URL(SERVER_URL))
  : new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve', '--dev'], stderr: 'inherit' });

const types = (res) => res.content.map((c) => c.type);
const logs = [];
if (v1) {
  const { LoggingMessageNotificationSchema } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
} else {
  client.setNotificationHandler('notifications/message', (n) => { logs.push((n.params ?? n)); });
}
// a call at log level `level` (null: none asked for); the log messages it brought
const logged = async (name, level) => {
  logs.length = 0;
  if (v1 && level) await client.setLoggingLevel(level);
  const params = { name, arguments: {} };
  if (!v1 && level) params._meta = { 'io.modelcontextprotocol/logLevel': level };
  const res = await client.callTool(params);
  return { res, logs: [...logs] };
};
try {
  await client.connect(transport);

  // content from the files a call wrote
  const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
  const a = audio.content.find((c) => c.type === 'audio');
  check(a?.mimeType === 'audio/wav' && Buffer.from(a.data, 'base64').subarray(0, 4).toString() === 'RIFF',
        'a WAV file as audio content', show(audio));
  const embedded = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
  const r = embedded.content.find((c) => c.type === 'resource')?.resource;
  check(r?.text === 'This is an embedded resource content.' && r.mimeType === 'text/plain' &&
        r.uri.startsWith('toolgen://artifacts/'), 'a small text file as an embedded resource', show(embedded));
  const read = r && await client.readResource({ uri: r.uri });
  check(read?.contents[0]?.text === r?.text, 'the embedded resource reads back by its URI');
  const mixed = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
  check(['text', 'image', 'resource', 'resource_link'].every((t) => types(mixed).includes(t)),
        'text, image, embedded resource and links in one result', types(mixed).join(','));

  // prompts with parts
  const withResource = await client.getPrompt({ name: 'test_prompt_with_embedded_resource',
                                                arguments: { resourceUri: 'test://example' } });
  const part = withResource.messages[0]?.content;
  check(part?.type === 'resource' && part.resource.uri === 'test://example' &&
        part.resource.text === 'Embedded resource content for testing.\n' &&
        withResource.messages[1]?.content?.text?.startsWith('Please process'),
        'a prompt embeds a resource under the URI it was given', show(withResource));
  const withImage = await client.getPrompt({ name: 'test_prompt_with_image' });
  check(withImage.messages[0]?.content?.type === 'image' &&
        withImage.messages[0].content.mimeType === 'image/png', 'a prompt carries an image', show(withImage));

  // log messages from the tool (toolgen_helpers.log) and from toolgen, at the level asked for
  const info = await logged('test_tool_with_logging', 'info');
  const mine = info.logs.filter((l) => l.logger === 'test_tool_with_logging');
  check(info.res.isError === false && mine.map((l) => l.data).join('|') ===
        'Tool execution started|Tool processing data|Tool execution completed' &&
        mine.every((l) => l.level === 'info'), 'the tool logs three messages at info', show(info.logs));
  check(!info.logs.some((l) => l.level === 'debug'), 'nothing below the level asked for', show(info.logs));
  const debug = await logged('test_tool_with_logging', 'debug');
  check(debug.logs.some((l) => l.logger === 'toolgen' && l.level === 'debug' && /running in the sandbox/.test(l.data)),
        'toolgen logs the call at debug', show(debug.logs));
  const quiet = await logged('test_tool_with_logging', v1 ? 'warning' : null);
  check(quiet.res.isError === false && quiet.logs.length === 0,
        v1 ? 'setLevel warning: no info messages' : 'no log level in _meta: no log messages', show(quiet.logs));

  // the progress the tool reports itself, after the server's "started"
  const ticks = [];
  const progOpts = { onprogress: (p) => ticks.push(p) };
  const progCall = { name: 'test_tool_with_progress', arguments: {} };
  const prog = v1 ? await client.callTool(progCall, undefined, progOpts) // 1.x: (params, schema, options)
                  : await client.callTool(progCall, progOpts);
  check(prog.isError === false && JSON.stringify(ticks.map((t) => [t.progress, t.total ?? null])) ===
        '[[0,null],[50,100],[100,100]]', 'the tool reports its own progress', show(ticks));
} catch (e) {
  check(false, 'client session', e?.stack || String(e));
} finally {
  await client.close();
}
console.log(`client: ${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
