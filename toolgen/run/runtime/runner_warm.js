'use strict';
/**
 * toolgen's warm Node.js runner: a node process started ahead of its one call, in a pool worker
 * of the code runtime (docs/sandbox.md#the-warm-pool).
 *
 * Node.js cannot fork, and cannot receive descriptors over a socket or set rlimits; so the
 * worker's pid 1 is runner_warm.py (`runner.py --warm-node NODE ARG...`), which speaks toolgen's
 * protocol (warm.c) exactly as a Python worker does, and this process is the child it starts
 * ahead -- started with the same node flags a cold call's node gets, and having loaded
 * runner_code.js -- instead of a forked one. It talks to runner_warm.py over a socket pair on
 * fd 3, one JSON line each way:
 *
 *   node -> runner   {"utime", "stime"}: loaded; the CPU time used so far (not the call's)
 *   runner -> node   the call: toolgen's message {"cwd", "home", "links", "tool_link"?, "tool"?}
 *                    plus "pid" and "fds" (stdout, stderr, reply, request): the runner's
 *                    descriptors, which this process opens again through /proc/<pid>/fd while
 *                    the runner lets it (it is dumpable for that moment only)
 *   node -> runner   {"taken": true}: the descriptors are open; the runner is non-dumpable again
 *                    and sets this process's rlimits
 *   runner -> node   {"go": true}: run the program
 *
 * The call's stdout and stderr become fds 1 and 2 (each closed, then opened again: the lowest
 * free number), the socket is closed, and runner_code.js's main() runs the program exactly as
 * in a cold call: same code, same request, same reply. Only runner code has run in this process
 * before the call, and the process ends with it: no state passes between calls. EOF at any point
 * before "go" ends the process; a process that cannot take the call exits with status 70 and
 * the runner gives the call back to toolgen, which runs it cold.
 */
const fs = require('fs');
const path = require('path');
const code = require('./runner_code'); // loaded now: what a call would otherwise wait for
// what main() loads first, making process.stdout on the call's pipe: loaded now too (a cold
// call has loaded it as well before its program runs); about 6 ms of each call otherwise
require('net');

const CTL = 3;
let pending = '';

function send(obj) {
  const buf = Buffer.from(`${JSON.stringify(obj)}\n`, 'utf8');
  let off = 0;
  while (off < buf.length) off += fs.writeSync(CTL, buf, off, buf.length - off);
}

/** The next line from the runner, parsed; null at EOF. Blocks (the socket is blocking). */
function receive() {
  const buf = Buffer.alloc(65536);
  while (!pending.includes('\n')) {
    let n;
    try {
      n = fs.readSync(CTL, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === 'EINTR' || e.code === 'EAGAIN') continue;
      return null;
    }
    if (n === 0) return null;
    pending += buf.toString('utf8', 0, n);
  }
  const at = pending.indexOf('\n');
  const line = pending.slice(0, at);
  pending = pending.slice(at + 1);
  return JSON.parse(line);
}

/** Opens the runner's descriptor n again; want: the number it must get (1, 2), or undefined. */
function reopen(pid, n, flags, want) {
  if (want !== undefined) fs.closeSync(want);
  const fd = fs.openSync(`/proc/${pid}/fd/${n}`, flags);
  if (want !== undefined && fd !== want) throw new Error(`fd ${want} came back as ${fd}`);
  return fd;
}

/** The call's descriptors and request; throws when one cannot be taken. */
function take(msg) {
  const fds = msg.fds;
  if (!Array.isArray(fds) || fds.length !== 4 || !Number.isInteger(msg.pid)) {
    throw new Error('a call without its four descriptors');
  }
  const { O_WRONLY, O_RDONLY } = fs.constants;
  reopen(msg.pid, fds[0], O_WRONLY, 1);
  reopen(msg.pid, fds[1], O_WRONLY, 2);
  const replyFd = reopen(msg.pid, fds[2], O_WRONLY);
  const req = reopen(msg.pid, fds[3], O_RDONLY);
  const request = JSON.parse(fs.readFileSync(req, 'utf8'));
  fs.closeSync(req);
  return { request, replyFd };
}

/** The call's directory, links and HOME, as runner_warm.py's child() makes them. */
function enter(msg) {
  fs.mkdirSync(msg.cwd, { recursive: true });
  process.chdir(msg.cwd);
  if (msg.tool_link) fs.symlinkSync(msg.tool, msg.tool_link);
  for (const [link, target] of Array.isArray(msg.links) ? msg.links : []) {
    const parent = path.dirname(link);
    if (parent !== '.') fs.mkdirSync(parent, { recursive: true });
    fs.symlinkSync(target, link);
  }
  process.env.HOME = msg.home;
}

function serve() {
  const usage = process.resourceUsage();
  send({ utime: usage.userCPUTime / 1e6, stime: usage.systemCPUTime / 1e6 });
  const msg = receive();
  if (!msg) process.exit(0); // discarded before a call came
  let channels;
  try {
    channels = take(msg);
    enter(msg);
  } catch (e) {
    process.exit(70); // the runner gives the call back (runner_warm.py)
  }
  send({ taken: true });
  const go = receive();
  if (!go || !go.go) process.exit(70);
  fs.closeSync(CTL);
  code.main(channels);
}

serve();
