// mcp_peer.mjs PORT N — the peer of bench/mcp.sh: a minimal MCP server written with the official
// TypeScript SDK (1.x, Streamable HTTP at /mcp, one session per client), serving N tools t0000…
// whose handler does what toolgen's synthetic tool does, as a subprocess: `cat -- FILE`.
// mcp_peer.mjs stdio N — the same server over stdio (bench/ping.sh).
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const npm = `${process.cwd()}/tests/npm/node_modules`;
const sdk = (p) => import(pathToFileURL(`${npm}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { McpServer } = await sdk('server/mcp.js');
const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
const z = (await import(pathToFileURL(`${npm}/zod/index.js`).href)).z;

const stdio = process.argv[2] === 'stdio';
const port = Number(process.argv[2]), n = Number(process.argv[3]);
const cat = (file) => new Promise((resolve, reject) =>
  execFile('cat', ['--', file], (err, out) => (err ? reject(err) : resolve(out))));

function server() {
  const s = new McpServer({ name: 'peer', version: '1.0.0' });
  for (let i = 0; i < n; i++) {
    const name = `t${String(i).padStart(4, '0')}`;
    s.registerTool(name, {
      title: `Show data file ${name}`,
      description: `Print a data file as text (synthetic tool ${name}).`,
      inputSchema: { file_path: z.string().describe('File to show, e.g. data/iris.csv.') },
      outputSchema: { text: z.string().describe("The file's text.") },
    }, async ({ file_path }) => {
      const text = (await cat(file_path)).replace(/\n$/, '');
      return { content: [{ type: 'text', text: JSON.stringify({ text }) }], structuredContent: { text } };
    });
  }
  return s;
}

if (stdio) {
  const { StdioServerTransport } = await sdk('server/stdio.js');
  await server().connect(new StdioServerTransport());
}

const sessions = new Map();
const http = createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let t = id && sessions.get(id);
  if (!t) {
    t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, t),
    });
    await server().connect(t);
  }
  await t.handleRequest(req, res);
});
http.keepAliveTimeout = 120000; /* the client reuses its connection between slow steps */
if (!stdio) http.listen(port, '127.0.0.1');
