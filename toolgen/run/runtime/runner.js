'use strict';
/**
 * toolgen's Node.js runner: loads one tool file, checks its entry function, calls it once.
 *
 * It runs inside the sandbox as `node runner.js`, before any tool code, and talks to toolgen over
 * two inherited file descriptors that the tool's own output never touches:
 *
 *   fd 4  the request (read once): {"file", "entrypoint", "args", "input_schema"}
 *   fd 3  the reply (written once, at the end): {"ok": true, "result": {...}}
 *         or {"ok": false, "error": {"phase", "type", "mro", "message", ...}}
 *
 * The entry function receives ONE object with the arguments and returns (or resolves to) the
 * result object. toolgen classifies failures from the reply, the exit status, the signal and the
 * resource usage, never from what the tool printed. Not a security boundary: the sandbox is.
 */
const path = require('path');
const { openChannels, writeReply, clip, mroOf } = require('./runner_channels');

// A copy of the names in toolgen/base/errcode.c (the runner cannot call toolgen's C code from
// inside the sandbox); tests/unit/test_errcode.c fails when the two differ.
const CODES = new Set(['INVALID_INPUT', 'NOT_FOUND', 'CONFLICT', 'UNAUTHORIZED', 'FORBIDDEN',
  'TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_ERROR', 'INTERNAL_ERROR']);
const MAX_MESSAGE = 4000;
const MAX_STACK = 8000;

const { request, replyFd } = openChannels();

let replied = false;
function reply(obj) {
  if (replied) return;
  replied = true;
  let data;
  try {
    data = JSON.stringify(obj);
  } catch (e) {
    data = JSON.stringify(failure('result', 'ResultNotJSON', String(e && e.message)));
  }
  writeReply(replyFd, data);
  process.exit(0);
}

function failure(phase, type, message, extra) {
  return { ok: false, error: Object.assign({ phase, type, mro: [type], message }, extra || {}) };
}

function describe(e, phase) {
  if (!(e instanceof Error)) {
    return { phase, type: typeof e, mro: [typeof e], message: clip(String(e), MAX_MESSAGE) };
  }
  const err = { phase, type: e.name || 'Error', mro: mroOf(e), message: clip(e.message, MAX_MESSAGE) };
  if (typeof e.code === 'string') {
    if (CODES.has(e.code)) err.code = e.code;
    else if (/^E[A-Z0-9]+$/.test(e.code)) err.errno_name = e.code;
    if (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') {
      const m = /Cannot find (?:module|package) '([^']+)'/.exec(e.message);
      if (m) err.missing_module = m[1];
    }
  }
  if (typeof e.errno === 'number') err.errno = Math.abs(e.errno);
  if (typeof e.path === 'string') err.filename = clip(e.path, 1000);
  if (typeof e.syscall === 'string') err.syscall = e.syscall;
  if (typeof e.stack === 'string') {
    const stack = e.stack;
    err.traceback = stack.length <= MAX_STACK ? stack : `...[truncated]\n${stack.slice(-MAX_STACK)}`;
    const toolDir = path.dirname(request.file);
    const re = new RegExp(`${toolDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^:\\s)]+:(\\d+)`);
    const m = re.exec(stack);
    if (m) err.tool_line = Number(m[1]);
  }
  return err;
}

/** Splits "a, b = 1, c: d, ...rest" at top-level commas. */
function splitTopLevel(text) {
  const parts = [];
  let depth = 0;
  let quote = null;
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') { cur += c + text[++i]; continue; }
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) { parts.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}

/** The text between the parentheses of the function's parameter list (or the bare arrow param). */
function paramText(src) {
  const open = src.indexOf('(');
  const arrow = src.indexOf('=>');
  if (arrow >= 0 && (open < 0 || arrow < open)) return src.slice(0, arrow).replace(/^async\s+/, '').trim();
  if (open < 0) return null;
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    if (src[i] === '(') depth++;
    else if (src[i] === ')' && --depth === 0) return src.slice(open + 1, i).trim();
  }
  return null;
}

/** The schema-validation gate for one-object functions; returns a list of problems. */
function checkSignature(fn, schema, entry) {
  const problems = [];
  const props = schema && typeof schema.properties === 'object' && schema.properties ? schema.properties : {};
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  if (fn.length > 1) {
    problems.push(`${entry}() declares ${fn.length} parameters; it receives one object with the arguments`);
    return problems;
  }
  const params = paramText(Function.prototype.toString.call(fn));
  if (!params || !params.startsWith('{')) return problems; // not destructured: nothing to check
  const inner = params.slice(1, params.lastIndexOf('}'));
  let rest = false;
  const seen = new Set();
  for (const part of splitTopLevel(inner)) {
    if (part.startsWith('...')) { rest = true; continue; }
    const m = /^([A-Za-z_$][\w$]*|'[^']*'|"[^"]*")\s*(:|=)?/.exec(part);
    if (!m) continue;
    const key = m[1].replace(/^['"]|['"]$/g, '');
    seen.add(key);
    const hasDefault = /=(?!>)/.test(part.replace(/^[^:]*:/, '')) && !/^[^=]*:\s*\{/.test(part);
    if (!Object.prototype.hasOwnProperty.call(props, key)) {
      problems.push(`parameter '${key}' is not a property of input_schema (properties: ${Object.keys(props).join(', ') || 'none'})`);
    } else if (required.has(key) && hasDefault) {
      problems.push(`parameter '${key}' has a default, but the property is required in input_schema`);
    }
  }
  if (!rest) {
    for (const key of Object.keys(props)) {
      if (!seen.has(key)) problems.push(`input_schema property '${key}' is not destructured by ${entry}() (add it, or use ...rest)`);
    }
  }
  return problems;
}

/** The first place where value is not plain JSON, or null. */
function notJson(value, where, depth) {
  where = where || '';
  depth = depth || 0;
  if (depth > 200) return `${where || '/'}: nested too deeply`;
  if (typeof value === 'string') return value.includes('\u0000') ? `${where || '/'}: a string holding U+0000 (NUL), which toolgen does not carry` : null;
  if (value === null || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${where || '/'}: ${value} is not a JSON number`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = notJson(value[i], `${where}/${i}`, depth + 1);
      if (bad) return bad;
    }
    return null;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `${where || '/'}: a ${proto.constructor && proto.constructor.name} is not plain JSON`;
    for (const [k, v] of Object.entries(value)) {
      const bad = notJson(v, `${where}/${k}`, depth + 1);
      if (bad) return bad;
    }
    return null;
  }
  return `${where || '/'}: a ${typeof value} is not JSON`;
}

process.on('uncaughtException', (e) => reply({ ok: false, error: describe(e, 'call') }));
process.on('unhandledRejection', (e) => reply({ ok: false, error: describe(e, 'call') }));

async function main() {
  const file = request.file;
  const entry = request.entrypoint;
  let phase = 'load';
  try {
    const mod = file.endsWith('.mjs')
      ? await import(require('url').pathToFileURL(file).href)
      : require(file);
    const fn = mod && (typeof mod[entry] === 'function' ? mod[entry]
      : mod.default && typeof mod.default[entry] === 'function' ? mod.default[entry] : undefined);
    if (typeof fn !== 'function') {
      return failure('load', 'EntrypointMissing', `${path.basename(file)} exports no function '${entry}'`,
        { names: Object.keys(mod || {}).slice(0, 50) });
    }
    phase = 'signature';
    const problems = checkSignature(fn, request.input_schema || {}, entry);
    if (problems.length) {
      return failure('signature', 'SignatureMismatch', `${entry}() does not match input_schema: ${problems.join('; ')}`,
        { problems });
    }
    phase = 'call';
    const result = await fn(request.args || {});
    phase = 'result';
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      return failure('result', 'ResultNotObject', `${entry}() returned ${Array.isArray(result) ? 'an array' : result === null ? 'null' : `a ${typeof result}`}; it must return an object`);
    }
    const bad = notJson(result);
    if (bad) return failure('result', 'ResultNotJSON', `the result is not plain JSON: ${bad}`);
    return { ok: true, result };
  } catch (e) {
    return { ok: false, error: describe(e, phase) };
  }
}

main().then(reply, (e) => reply({ ok: false, error: describe(e, 'call') }));
