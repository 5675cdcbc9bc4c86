'use strict';
/**
 * toolgen's Node.js session interpreter (docs/code.md#sessions): started once per session by
 * runner_session.py, which speaks to toolgen; it runs the session's programs one after another
 * in this one process, so their globals and the working directory's files survive.
 *
 * fd 3 is a socket of JSON lines with the supervisor (runner_session.py has the protocol):
 * {"ready"} once; then per program {"request", "cwd", "cpu_s"} in, and {"done", "status",
 * "reply", "utime", "stime", "maxrss"} out. stdout and stderr are pipes the supervisor copies
 * into the call's own.
 *
 * A program is a script run in this context (vm.runInThisContext, named [code]): its `var` and
 * `function` declarations and `globalThis.x` become globals that later programs see; `let`,
 * `const` and `class` at the top level do too, but cannot be declared twice. A program with
 * top-level `await` runs as the body of an async function (its declarations stay local), and
 * the call waits for it. `require` resolves from the working directory. Errors are described as
 * runner_code.js describes them.
 */
const fs = require('fs');
const net = require('net');
const path = require('path');
const util = require('util');
const vm = require('vm');
const Module = require('module');
const code = require('./runner_code');

const PROGRAM = '[code]';

function usage() {
  const u = process.resourceUsage();
  return { utime: u.userCPUTime / 1e6, stime: u.systemCPUTime / 1e6, maxrss: u.maxRSS };
}

/** The program's globals that a CommonJS module would have, for this working directory. */
function moduleGlobals(cwd) {
  const file = path.join(cwd, PROGRAM);
  const mod = new Module(file, null);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(cwd);
  globalThis.require = Module.createRequire(file);
  globalThis.module = mod;
  globalThis.exports = mod.exports;
  globalThis.__filename = file;
  globalThis.__dirname = cwd;
  code.setProgramFile(file);
  return file;
}

function needsAsync(e) {
  return e instanceof SyntaxError && /await is only valid/.test(e.message);
}

/** Runs source; a promise when it awaits at the top level. */
function runSource(source, file) {
  // breakOnSigint: the supervisor's interrupt (a limit) ends the script with an error and the
  // session keeps its globals; SIGINT outside a running script ends the process (a restart)
  try {
    return vm.runInThisContext(source, { filename: file, breakOnSigint: true });
  } catch (e) {
    if (!needsAsync(e)) throw e;
    return vm.runInThisContext(`(async () => {\n${source}\n})()`,
      { filename: file, lineOffset: -1, breakOnSigint: true });
  }
}

function report(e) {
  if (e instanceof Error && typeof e.stack === 'string') {
    try {
      Object.defineProperty(e, 'stack', { value: code.trimStack(e.stack), configurable: true, writable: true });
    } catch (ignored) {
      // a frozen error keeps its stack
    }
  }
  try {
    process.stderr.write(`${e instanceof Error && e.stack ? util.inspect(e) : `Uncaught ${util.inspect(e)}`}\n`);
  } catch (ignored) {
    // the reply matters more than the printout
  }
  return code.describe(e);
}

async function handle(msg) {
  const request = msg.request || {};
  const cwd = typeof msg.cwd === 'string' ? msg.cwd : '/work';
  fs.mkdirSync(cwd, { recursive: true });
  process.chdir(cwd);
  process.exitCode = undefined;
  const allowed = code.strings(request.allowed);
  let error = code.enterWorkingDir(request.workingDir) ||
    code.checkPackages(code.strings(request.packages), allowed);
  let status = error ? 1 : 0;
  if (!error) {
    const file = moduleGlobals(process.cwd());
    try {
      const r = runSource(typeof request.code === 'string' ? request.code : '', file);
      if (r && typeof r.then === 'function' && request.code && /\bawait\b/.test(request.code)) await r;
    } catch (e) {
      error = report(e);
      status = 1;
      if (error.missing_module) code.availableOf(allowed);
    }
    if (!error && typeof process.exitCode === 'number') status = process.exitCode & 0xff;
  }
  const reply = { ok: status === 0 && !error, imports: [], cached_imports: [] };
  if (error) reply.error = error;
  const available = code.takeAvailable() || (error && error.missing_module ? code.availableOf(allowed) : null);
  if (available) reply.available = available;
  process.exitCode = undefined;
  return { done: true, status, reply, ...usage() };
}

function main() {
  code.blockingStreams();
  // an error a program left behind (a timer, a promise) after its call ended: printed, not fatal
  process.on('uncaughtException', (e) => report(e));
  process.on('unhandledRejection', (e) => report(e));
  const ctl = new net.Socket({ fd: 3, readable: true, writable: true });
  let buf = '';
  let queue = Promise.resolve();
  ctl.on('data', (chunk) => {
    buf += chunk.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg = null;
      try {
        msg = JSON.parse(line);
      } catch (ignored) {
        continue;
      }
      queue = queue.then(() => handle(msg)).then((done) => ctl.write(`${JSON.stringify(done)}\n`));
    }
  });
  ctl.on('end', () => process.exit(0));
  ctl.write(`${JSON.stringify({ ready: true })}\n`);
}

main();
