'use strict';
/**
 * What toolgen's Node.js runners share (runner.js for tools, runner_code.js for programs): the
 * request on fd 4, read once; the reply pipe on fd 3, moved to another descriptor before any
 * tool or program code runs; the reply written whole; and how an error is described.
 */
const fs = require('fs');

/** The request from fd 4 and the reply pipe's new descriptor (so that fd 3 is not where tool
 * or program code would look). */
function openChannels() {
  const request = JSON.parse(fs.readFileSync(4, 'utf8'));
  fs.closeSync(4);
  let replyFd = 3;
  try {
    replyFd = fs.openSync('/proc/self/fd/3', 'w');
    fs.closeSync(3);
  } catch (e) {
    replyFd = 3;
  }
  return { request, replyFd };
}

/** Writes text to fd whole and closes it. */
function writeReply(fd, text) {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
  fs.closeSync(fd);
}

function clip(text, limit) {
  text = String(text);
  return text.length <= limit ? text : `${text.slice(0, limit - 15)} ...[truncated]`;
}

/** The class names of an error's prototype chain: what the classifier matches types against. */
function mroOf(e) {
  const names = [];
  for (let p = Object.getPrototypeOf(e); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const name = p.constructor && p.constructor.name;
    if (name) names.push(name);
  }
  return names.length ? names : [typeof e];
}

module.exports = { openChannels, writeReply, clip, mroOf };
