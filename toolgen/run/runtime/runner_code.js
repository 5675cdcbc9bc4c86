'use strict';
/**
 * toolgen's code runner: runs a call's `code` argument as a Node.js program (docs/code.md).
 *
 * It runs inside the sandbox as `node runner_code.js` and talks to toolgen as runner.js does,
 * over two inherited descriptors the program's own output never touches:
 *
 *   fd 4  the request (read once): {"code", "packages", "allowed", "workingDir"}
 *   fd 3  the reply (written once, when the process exits):
 *         {"ok": true} when the program ended with status 0;
 *         {"ok": false, "error": {...}} when it threw (phase, type, mro, message, errno_name,
 *         missing_module, line: the program's line, traceback) or its packages were refused;
 *         {"ok": false} when it exited with another status (process.exit(n), process.exitCode)
 *         and, after a failed import or refused packages, "available" (the allowed packages that
 *         resolve here).
 *
 * The program is a fresh CommonJS module compiled by the module system itself (Module#_compile,
 * what `node -e` uses), named [code] in the working directory, so require() resolves from there;
 * source with import / export or top-level await runs as an ES module from a private temporary
 * file instead. The process exits with the program's status (1 after an uncaught exception or
 * rejection, printed to stderr), as `node program.js` would. No vm context: the kernel sandbox
 * around the process is the isolation (docs/sandbox.md).
 */
const fs = require('fs');
const path = require('path');
const Module = require('module');
const util = require('util');
const { openChannels, writeReply, clip, mroOf } = require('./runner_channels');

const MAX_MESSAGE = 4000;
const MAX_STACK = 8000;
const WARM_RUNNER = path.join(__dirname, 'runner_warm.js'); // a pool worker's (runner_warm.js)

let request = null; // the call's request (fd 4), once main() read it
let replyFd = null;
let programFile = null; // where the program's frames are (for its line)
let error = null; // the reply's error, once the program failed
let available = null; // the allowed packages that resolve, when a failure is about packages

function strings(list) {
  return Array.isArray(list) ? list.filter((p) => typeof p === 'string') : [];
}

function resolves(name, from) {
  if (Module.isBuiltin(name)) return true;
  try {
    require.resolve(name, { paths: [from] });
    return true;
  } catch (e) {
    return false;
  }
}

function availableOf(allowed) {
  return allowed.filter((p) => resolves(p, process.cwd()));
}

/** The reply's error for refused packages, or null when every one may be used. */
function checkPackages(wanted, allowed) {
  const refused = wanted.filter((p) => !allowed.includes(p) && !Module.isBuiltin(p));
  const missing = wanted.filter((p) => !refused.includes(p) && !resolves(p, process.cwd()));
  if (!refused.length && !missing.length) return null;
  available = availableOf(allowed);
  const have = `${available.join(', ') || 'none'} (and Node.js's built-in modules)`;
  const type = refused.length ? 'PackageNotAllowed' : 'PackageNotInstalled';
  const names = refused.length ? refused : missing;
  const message = refused.length
    ? `packages not allowed: ${names.join(', ')}; allowed and installed: ${have}`
    : `packages not installed in the sandbox: ${names.join(', ')}; installed and allowed: ${have}; nothing is installed at run time`;
  return { phase: 'packages', type, mro: [type], message, packages: names };
}

function enterWorkingDir(wd) {
  if (!wd || wd === '.') return null;
  const parts = wd.split('/');
  if (wd.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    return { phase: 'setup', type: 'InvalidWorkingDir', mro: ['InvalidWorkingDir'],
      message: `workingDir must be a relative subfolder without '..': ${JSON.stringify(wd)}` };
  }
  fs.mkdirSync(wd, { recursive: true });
  process.chdir(wd);
  return null;
}

/** The program's frames, as a path (CommonJS) or a file URL (ES module). */
function programPattern(suffix) {
  const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const url = require('url').pathToFileURL(programFile).href;
  return new RegExp(`(?:${esc(programFile)}|${esc(url)}):(\\d+)${suffix}`);
}

function programLine(stack) {
  if (!programFile || typeof stack !== 'string') return null;
  const m = programPattern('').exec(stack);
  return m ? Number(m[1]) : null;
}

/** A frame of toolgen's runners (this file, runner_warm.js): below the first of them, a stack
 * shows only how the runner itself was started, cold or in a pool worker. */
function runnerFrame(line) {
  return /^\s+at /.test(line) && (line.includes(__filename) || line.includes(WARM_RUNNER));
}

/** The stack as the program's author needs it: its frames up to the program's outermost one,
 * or, when no frame is the program's (a syntax error), those above the runner's first. So a
 * program's stack is the same whether the runner started cold or in a pool worker. */
function trimStack(stack) {
  const lines = stack.split('\n');
  const frame = programFile ? programPattern(':\\d+') : null;
  let last = -1;
  lines.forEach((l, i) => { if (frame && /^\s+at /.test(l) && frame.test(l)) last = i; });
  if (last >= 0) return lines.slice(0, last + 1).join('\n');
  const first = lines.findIndex(runnerFrame);
  return (first >= 0 ? lines.slice(0, first) : lines).join('\n');
}

/** text with the program's file, as a path or a file URL, named [code]: the name does not
 * depend on the working directory (/work cold, /work/c0 in a pool worker) or on an ES module's
 * temporary folder (docs/code.md#how-a-program-runs). */
function shown(text) {
  if (!programFile || typeof text !== 'string') return text;
  const url = require('url').pathToFileURL(programFile).href;
  return text.split(url).join('[code]').split(programFile).join('[code]');
}

/** A syntax error of the program itself (the compiler's: no frame of the program ran). */
function compileError(e) {
  return e instanceof SyntaxError && programFile && typeof e.stack === 'string' &&
    !programPattern(':\\d+').test(e.stack);
}

/** What toolgen's classifier reads about an uncaught exception (runner.js's facts). */
function describe(e) {
  if (!(e instanceof Error)) {
    return { phase: 'program', type: 'ThrownValue', mro: ['ThrownValue'],
      message: clip(`the program threw a ${typeof e}: ${util.inspect(e)}`, MAX_MESSAGE) };
  }
  const err = { phase: compileError(e) ? 'compile' : 'program', type: e.name || 'Error',
    mro: mroOf(e), message: clip(e.message, MAX_MESSAGE) };
  // A failed fetch() is a TypeError whose cause holds the system error.
  const sys = typeof e.code === 'string' ? e : e.cause && typeof e.cause.code === 'string' ? e.cause : null;
  if (sys) {
    err.node_code = sys.code;
    if (/^E(?!RR_)[A-Z0-9_]+$/.test(sys.code)) err.errno_name = sys.code;
    if (sys.code === 'MODULE_NOT_FOUND' || sys.code === 'ERR_MODULE_NOT_FOUND') {
      const m = /Cannot find (?:module|package) '([^']+)'/.exec(sys.message);
      if (m) err.missing_module = m[1];
    }
  }
  if (typeof e.path === 'string') err.filename = clip(e.path, 1000);
  if (typeof e.syscall === 'string') err.syscall = e.syscall;
  if (typeof e.stack === 'string') {
    err.traceback = e.stack.length <= MAX_STACK ? e.stack : `...[truncated]\n${e.stack.slice(-MAX_STACK)}`;
    const line = programLine(e.stack);
    if (line) err.line = line;
  }
  return err;
}

function replyOnExit(code) {
  const reply = { ok: code === 0 && !error };
  if (error) reply.error = error;
  if (available) reply.available = available;
  writeReply(replyFd, JSON.stringify(reply));
}

/** An uncaught exception or rejection ends the program with status 1, as in `node program.js`. */
function uncaught(e) {
  if (error) return;
  if (e instanceof Error && typeof e.stack === 'string') {
    try {
      Object.defineProperty(e, 'stack', { value: trimStack(e.stack), configurable: true, writable: true });
    } catch (ignored) {
      // a frozen error keeps its stack
    }
  }
  error = describe(e);
  for (const key of ['message', 'traceback', 'filename']) error[key] = shown(error[key]);
  if (error.missing_module) available = availableOf(strings(request.allowed));
  try {
    const text = e instanceof Error && e.stack ? util.inspect(e) : `Uncaught ${util.inspect(e)}`;
    process.stderr.write(`${shown(text)}\n`);
  } catch (ignored) {
    // the reply matters more than the printout
  }
  process.exit(1);
}

/** Source that only an ES module accepts: the CommonJS compiler says so, or (Node.js >= 20.19,
 * which loads ES syntax through require) the module awaits at its top level. Both are thrown
 * before any of the program ran. */
function needsModule(e) {
  return (e instanceof SyntaxError &&
    /Cannot use import statement outside a module|Unexpected token 'export'|await is only valid in async functions and the top level bodies of modules|Cannot use 'import\.meta' outside a module/.test(e.message)) ||
    (e && e.code === 'ERR_REQUIRE_ASYNC_MODULE');
}

function runModule(source) {
  const os = require('os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgen-code-'));
  programFile = path.join(dir, 'main.mjs');
  fs.writeFileSync(programFile, source);
  import(require('url').pathToFileURL(programFile).href).catch(uncaught);
}

function runProgram(source) {
  programFile = path.join(process.cwd(), '[code]');
  const main = new Module(programFile, null);
  main.filename = programFile;
  main.paths = Module._nodeModulePaths(process.cwd());
  process.mainModule = main; // require.main === module in the program, as for `node file.js`
  process.argv = [process.argv[0], programFile];
  try {
    main._compile(source, programFile);
  } catch (e) {
    if (!needsModule(e)) throw e;
    runModule(source);
  }
}

// Blocking writes to the stdout and stderr pipes, as for a terminal: a program that prints in a
// tight loop then waits for toolgen to read (and meets the output cap) instead of queueing its
// output in memory until the heap runs out.
function blockingStreams() {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream._handle && typeof stream._handle.setBlocking === 'function') stream._handle.setBlocking(true);
  }
}

/** Runs the call's program; channels: its request and reply descriptor, as openChannels()
 * gives them (runner_warm.js passes the ones a pool worker took over). */
function main(channels) {
  ({ request, replyFd } = channels || openChannels());
  blockingStreams();
  process.on('exit', replyOnExit);
  const refusal = enterWorkingDir(request.workingDir) ||
    checkPackages(strings(request.packages), strings(request.allowed));
  if (refusal) {
    error = refusal;
    process.exitCode = 1;
  } else {
    process.on('uncaughtException', uncaught);
    process.on('unhandledRejection', uncaught);
    runProgram(typeof request.code === 'string' ? request.code : '');
  }
}

if (require.main === module) {
  main();
} else { // runner_warm.js runs the program in a pool worker; runner_session.js: a session's
  // interpreter describes its programs the same way
  module.exports = {
    main, blockingStreams, enterWorkingDir, checkPackages, describe, trimStack, strings, availableOf,
    setProgramFile: (file) => { programFile = file; },
    takeAvailable: () => { const a = available; available = null; return a; },
  };
}
