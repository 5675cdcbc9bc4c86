// serve_features.mjs — the official TypeScript SDK clients, 1.x (@modelcontextprotocol/sdk, the
// legacy era) or 2.x (@modelcontextprotocol/client, pinned to 2026-07-28), drive `toolgen serve
// --dev` on the conformance fixture repository (tests/mcp/conformance-repo) over stdio or
// Streamable HTTP, through what the SDK's own schemas check: audio, embedded resources and mixed
// content from the files a call wrote, prompts that embed a resource and an image, log messages
// from tool code (notifications/message at the level the client asked for: logging/setLevel in
// the legacy era, the request's _meta in 2026-07-28) and the progress a tool reports itself, and
// tools that ask the client — a form, the client's model, its roots, several at once and in
// several rounds — answered by the client's own request handlers (legacy: requests the server
// sends mid-call, with progress going on and cancellation working while the call waits;
// 2026-07-28: input_required, retried by the client); the resources the repository declares
// (serve.resources: text, binary, a template), and a subscription to one that changes
// (resources/subscribe; 2026-07-28: subscriptions/listen with resourceSubscriptions).
// Run from the repository root by tests/cli/serve_features.sh with SDK (1 or 2), TG, REPO and
// either SERVER_URL (HTTP) or nothing (stdio: the client starts `TG -C REPO serve --dev`).
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { appendFileSync } from 'node:fs';
import { check, finish, load } from './client_lib.mjs';

const { SDK, TG, REPO, SERVER_URL } = process.env;
const v1 = SDK === '1';
const { Client } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/index.js')
                      : await load('@modelcontextprotocol/client/dist/index.mjs');
const { StdioClientTransport } = v1 ? await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js')
                                    : await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { StreamableHTTPClientTransport } = v1
  ? await load('@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js')
  : await load('@modelcontextprotocol/client/dist/index.mjs');

const show = (x) => JSON.stringify(x).slice(0, 400);

const capabilities = { elicitation: {}, sampling: {}, roots: { listChanged: false } };
const options = v1 ? { capabilities }
                   : { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities };
const client = new Client({ name: `toolgen-features-${SDK}x`, version: '1.0.0' }, options);
const transport = SERVER_URL
  ? new StreamableHTTPClientTransport(new URL(SERVER_URL))
  : new StdioClientTransport({ command: TG, args: ['-C', REPO, 'serve', '--dev', '--progress-ms', '200'],
                              stderr: 'inherit' });

// the client's answers: a form filled in (after `hold`, when set, resolves), the model's text,
// one root
const asked = [];
let hold = null;
const onElicit = async (req) => {
  const params = req.params ?? req;
  asked.push(params.message);
  if (hold) await hold(params);
  const content = {};
  for (const [k, f] of Object.entries(params.requestedSchema.properties))
    content[k] = f.type === 'boolean' ? true : f.type === 'array' ? [] : k === 'name' ? 'Ann' : `a ${k}`;
  return { action: 'accept', content };
};
const onSample = async (req) => {
  asked.push(`sampling: ${(req.params ?? req).messages[0].content.text}`);
  return { role: 'assistant', content: { type: 'text', text: 'Hi there' }, model: 'test-model',
           stopReason: 'endTurn' };
};
const onRoots = async () => { asked.push('roots'); return { roots: [{ uri: 'file:///work', name: 'work' }] }; };
if (v1) {
  const types = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
  client.setRequestHandler(types.ElicitRequestSchema, onElicit);
  client.setRequestHandler(types.CreateMessageRequestSchema, onSample);
  client.setRequestHandler(types.ListRootsRequestSchema, onRoots);
} else {
  client.setRequestHandler('elicitation/create', onElicit);
  client.setRequestHandler('sampling/createMessage', onSample);
  client.setRequestHandler('roots/list', onRoots);
}
// every wait is for an event; HANG_S (tests/lib.sh) bounds it, only against a hang
const HANG_MS = Number(process.env.HANG_S || 300) * 1000;
const callTool = (params, opts = {}) => v1
  ? client.callTool(params, undefined, { timeout: HANG_MS, ...opts })
  : client.callTool(params, { timeout: HANG_MS, ...opts });
const callWith = (name, args, opts) => callTool({ name, arguments: args }, opts);
const text = (res) => res.structuredContent?.text ?? show(res);

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
  const res = await callTool(params);
  return { res, logs: [...logs] };
};
try {
  await client.connect(transport);

  // content from the files a call wrote
  const audio = await callTool({ name: 'test_audio_content', arguments: {} });
  const a = audio.content.find((c) => c.type === 'audio');
  check(a?.mimeType === 'audio/wav' && Buffer.from(a.data, 'base64').subarray(0, 4).toString() === 'RIFF',
        'a WAV file as audio content', show(audio));
  const embedded = await callTool({ name: 'test_embedded_resource', arguments: {} });
  const r = embedded.content.find((c) => c.type === 'resource')?.resource;
  check(r?.text === 'This is an embedded resource content.' && r.mimeType === 'text/plain' &&
        r.uri.startsWith('toolgen://artifacts/'), 'a small text file as an embedded resource', show(embedded));
  const read = r && await client.readResource({ uri: r.uri });
  check(read?.contents[0]?.text === r?.text, 'the embedded resource reads back by its URI');
  const mixed = await callTool({ name: 'test_multiple_content_types', arguments: {} });
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
  const prog = await callTool(progCall, progOpts);
  // (the server's own reports may come first, while the sandbox starts; then the tool's alone)
  const tool = ticks.filter((t) => t.total === 100).map((t) => t.progress);
  check(prog.isError === false && JSON.stringify(tool) === '[50,100]' && ticks[0].progress === 0 &&
        ticks.every((t, i) => i === 0 || t.progress > ticks[i - 1].progress) &&
        ticks.slice(ticks.findIndex((t) => t.total === 100)).every((t) => t.total === 100),
        'the tool reports its own progress', show(ticks));

  // tools that ask the client
  asked.length = 0;
  const three = await callWith('test_input_required_result_multiple_inputs', {});
  check(text(three) === 'Name: Ann; Greeting: Hi there; Roots: 1', 'a form, the model and the roots at once',
        text(three));
  check(asked.length === 3 && asked.includes('roots') && asked.includes('sampling: Generate a greeting'),
        'the client was asked the three once each', show(asked));
  const sampled = await callWith('test_sampling', { prompt: 'Say hi' });
  check(text(sampled) === 'LLM response: Hi there', 'sample() returns the model\'s answer', text(sampled));
  asked.length = 0;
  const rounds = await callWith('test_input_required_result_multi_round', {});
  check(text(rounds) === 'Multi-round complete for Ann who likes a color' &&
        JSON.stringify(asked) === JSON.stringify(['Step 1: What is your name?', 'Step 2: What is your favorite color?']),
        'two rounds of questions', `${text(rounds)} ${show(asked)}`);
  const enums = await callWith('test_elicitation_sep1330_enums', {});
  check(/^Elicitation completed: action=accept/.test(text(enums)), 'a form of enum fields', text(enums));

  // the resources the repository declares
  const listed = (await client.listResources()).resources.map((r) => r.uri);
  check(['test://static-text', 'test://static-binary', 'test://watched-resource'].every((u) => listed.includes(u)),
        'the declared resources are listed', show(listed));
  const txt = await client.readResource({ uri: 'test://static-text' });
  check(txt.contents[0]?.mimeType === 'text/plain' && /static text resource/.test(txt.contents[0].text),
        'a declared text file reads as text', show(txt));
  const bin = await client.readResource({ uri: 'test://static-binary' });
  check(bin.contents[0]?.mimeType === 'image/png' && Buffer.from(bin.contents[0].blob, 'base64').subarray(1, 4).toString() === 'PNG',
        'a declared PNG reads as a blob', show(bin));
  const tpl = await client.readResource({ uri: 'test://template/123/data' });
  check(JSON.parse(tpl.contents[0]?.text ?? '{}').id === '123', 'a template fills the file from the URI', show(tpl));
  let nope;
  try { await client.readResource({ uri: 'test://template/../data' }); } catch (e) { nope = e; }
  check(nope !== undefined, 'a template value cannot climb out', String(nope));

  // a subscription to a declared resource: its change is announced
  const watched = 'test://watched-resource';
  const updates = [];
  let heard = () => {};
  const onUpdated = (n) => { updates.push((n.params ?? n).uri); heard(); };
  let listen;
  if (v1) {
    const types2 = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
    client.setNotificationHandler(types2.ResourceUpdatedNotificationSchema, onUpdated);
    await client.subscribeResource({ uri: watched });
  } else {
    client.setNotificationHandler('notifications/resources/updated', onUpdated);
    listen = await client.listen({ resourceSubscriptions: [watched] });
  }
  const arrived = new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), HANG_MS);
    heard = () => { if (updates.includes(watched)) { clearTimeout(t); resolve(true); } };
  });
  appendFileSync(`${REPO}/resources/watched.txt`, `changed by the ${SDK}.x client\n`);
  check(await arrived, 'notifications/resources/updated after the file changed', show(updates));
  if (v1) await client.unsubscribeResource({ uri: watched });
  else await listen.close();

  if (v1) {
    // legacy: the call waits for the answer, and its progress goes on meanwhile
    let ticks = 0;
    hold = () => new Promise((resolve) => {
      const t0 = Date.now();
      const poll = setInterval(() => {
        if (ticks >= 3 || Date.now() - t0 > HANG_MS) { clearInterval(poll); resolve(); }
      }, 20);
    });
    const waited = await callWith('test_input_required_result_elicitation', {},
                                  { onprogress: () => { ticks++; }, resetTimeoutOnProgress: true });
    check(text(waited) === 'Hello, Ann!' && ticks >= 3, 'progress while the call waits for the answer',
          `${ticks} ticks, ${text(waited)}`);
    // and a cancellation reaches it: the client aborts while its user has not answered
    const abort = new AbortController();
    let release;
    hold = () => { abort.abort('gave up'); return new Promise((resolve) => { release = resolve; }); };
    let outcome = 'resolved';
    try {
      await callWith('test_input_required_result_elicitation', {}, { signal: abort.signal });
    } catch (e) { outcome = String(e?.message ?? e); }
    check(/gave up|abort/i.test(outcome), 'a call cancelled while it waits rejects', outcome);
    hold = null;
    if (release) release();
    const next = await callWith('test_simple_text', {});
    check(next.isError === false, 'the next call is served after the cancellation');
  }
} catch (e) {
  check(false, 'client session', e?.stack || String(e));
} finally {
  await client.close();
}
finish();
