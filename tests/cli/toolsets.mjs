// toolsets.mjs — a built-in toolset through an official MCP TypeScript client: SDK=1 the 1.x
// client (@modelcontextprotocol/sdk, legacy revisions), SDK=2 the 2.x client
// (@modelcontextprotocol/client, revision 2026-07-28). It starts `toolgen -C REPO serve
// --toolset calculator` over stdio, finds the calculator in tools/list, and checks that it
// computes, converts units and refuses code. Run by tests/cli/toolsets.sh with TG, REPO, SDK.
// Prints "FAIL NAME: why" lines and "client: N passed, N failed" last; exits 1 on a failure.
import { check, finish, load } from './client_lib.mjs';

const { TG, REPO, SDK } = process.env;
const [{ Client }, { StdioClientTransport }] = SDK === '2'
  ? await Promise.all([load('@modelcontextprotocol/client/dist/index.mjs'),
                       load('@modelcontextprotocol/client/dist/stdio.mjs')])
  : await Promise.all([load('@modelcontextprotocol/sdk/dist/esm/client/index.js'),
                       load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js')]);

const options = SDK === '2' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
const client = new Client({ name: `toolgen-toolsets-${SDK}`, version: '1.0.0' }, options);
const transport = new StdioClientTransport({ command: TG,
  args: ['-C', REPO, 'serve', '--dev', '--toolset', 'calculator'], stderr: 'inherit' });
const text = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const calc = tools.find((t) => t.name === 'calculator');
  check(calc && calc.outputSchema && calc.inputSchema.required.includes('expression'),
    'tools/list offers the calculator with its schemas', JSON.stringify(tools.map((t) => t.name)));
  let r = await client.callTool({ name: 'calculator', arguments: { expression: '2 * (3 + 4) ** 2' } });
  check(!r.isError && r.structuredContent?.value === 98, 'arithmetic', JSON.stringify(r));
  r = await client.callTool({ name: 'calculator', arguments: { expression: '10 km to mi', precision: 4 } });
  check(!r.isError && r.structuredContent?.unit === 'mi' && r.structuredContent?.text === '6.214 mi',
    'a unit conversion in words', JSON.stringify(r.structuredContent));
  r = await client.callTool({ name: 'calculator',
    arguments: { expression: "__import__('os').system('id')" } });
  check(r.isError === true && /not a function of the calculator/.test(text(r)),
    'code is refused, not run', JSON.stringify(r));
  r = await client.callTool({ name: 'calculator', arguments: { expression: 'mean(' } });
  check(r.isError === true && /not an expression/.test(text(r)), 'a syntax error says so', text(r));
} catch (e) {
  check(false, 'the session', e.stack);
} finally {
  await client.close().catch(() => {});
}
finish();
