// pandas_peer.mjs TOOL_DIR NAME — the peer of bench/pandas_calls.sh: an MCP server written with the
// official TypeScript SDK (1.x, stdio) serving one pandas tool the way a server without a pool
// does: each call runs `python3 -c` on the tool's file in a fresh interpreter (a cold `import
// pandas` per call), no sandbox. The tool's input is passed through as JSON.
// PEER_PYTHON names the interpreter (one with pandas; default python3 on PATH).
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const npm = `${process.cwd()}/tests/npm/node_modules`;
const sdk = (p) => import(pathToFileURL(`${npm}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { McpServer } = await sdk('server/mcp.js');
const { StdioServerTransport } = await sdk('server/stdio.js');
const z = (await import(pathToFileURL(`${npm}/zod/index.js`).href)).z;

const [toolDir, name] = process.argv.slice(2);
const program = 'import json, sys; sys.path.insert(0, sys.argv[1]); import tool; ' +
  'print(json.dumps(tool.run(**json.loads(sys.argv[2])), default=str))';
const run = (args) => new Promise((resolve, reject) =>
  execFile(process.env.PEER_PYTHON || 'python3', ['-c', program, toolDir, JSON.stringify(args)], { maxBuffer: 1 << 24 },
    (err, out) => (err ? reject(err) : resolve(out))));

const s = new McpServer({ name: 'pandas-peer', version: '1.0.0' });
s.registerTool(name, {
  description: 'Count rows per group of a CSV file (pandas, a fresh python3 per call).',
  inputSchema: { file_path: z.string(), group_by_columns: z.array(z.string()) },
}, async (args) => ({ content: [{ type: 'text', text: (await run(args)).trim() }] }));
await s.connect(new StdioServerTransport());
