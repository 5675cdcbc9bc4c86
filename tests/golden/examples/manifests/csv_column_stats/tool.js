'use strict';
/**
 * Descriptive statistics of one numeric column of a CSV file, in plain Node.js (no npm packages).
 */
const fs = require('fs');

/** Cells that count as missing values. */
const MISSING = new Set(['', 'NA', 'N/A', 'NaN', 'nan', 'null', 'NULL']);
/** A plain decimal number: no hex, no Infinity, no empty string (unlike Number()). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** An Error carrying one of the deterministic error codes. */
function toolError(code, message) {
  const err = new Error(message);
  err.code = code;
  return err;
}

/**
 * Parses CSV text (RFC 4180): comma-separated fields, double-quoted fields may hold commas,
 * line breaks and "" for a quote; CRLF or LF line ends. Returns an array of rows.
 */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (quoted) throw toolError('INVALID_INPUT', 'unterminated quoted field at the end of the file');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function readCsv(filePath) {
  let text;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') throw toolError('NOT_FOUND', `File not found: ${filePath}`);
    if (err.code === 'EISDIR') throw toolError('INVALID_INPUT', `${filePath} is a directory, not a CSV file`);
    throw err;
  }
  const rows = parseCsv(text.replace(/^\uFEFF/, ''));
  if (rows.length === 0) {
    throw toolError('INVALID_INPUT', `${filePath} is empty: a CSV file needs at least a header row`);
  }
  return { header: rows[0], rows: rows.slice(1).filter((r) => !(r.length === 1 && r[0] === '')) };
}

/** Rounds to 4 decimals; null stays null. */
function round4(x) {
  return x === null ? null : Math.round(x * 1e4) / 1e4;
}

/** Linear-interpolated quantile of sorted values (the method pandas and numpy use by default). */
function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function describe(values) {
  const n = values.length;
  if (n === 0) {
    return { sum: null, mean: null, std: null, min: null, p25: null, median: null, p75: null, max: null };
  }
  const sorted = [...values].sort((a, b) => a - b);
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const variance = n > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : null;
  return {
    sum: round4(sum),
    mean: round4(mean),
    std: variance === null ? null : round4(Math.sqrt(variance)),
    min: sorted[0],
    p25: round4(quantile(sorted, 0.25)),
    median: round4(quantile(sorted, 0.5)),
    p75: round4(quantile(sorted, 0.75)),
    max: sorted[n - 1],
  };
}

function renderMarkdown(r) {
  const cell = (v) => (v === null ? 'n/a' : String(v));
  const s = r.stats;
  return [
    `## ${r.column} in ${r.file_path}`,
    '',
    `${r.count} numeric values in ${r.rows} rows (${r.missing} missing, ${r.non_numeric} not numeric).`,
    '',
    '| count | sum | mean | std | min | p25 | median | p75 | max |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${r.count} | ${[s.sum, s.mean, s.std, s.min, s.p25, s.median, s.p75, s.max].map(cell).join(' | ')} |`,
    '',
  ].join('\n');
}

/**
 * Entry point: {file_path, column} -> statistics of the numeric values of that column.
 */
function run({ file_path, column }) {
  const { header, rows } = readCsv(file_path);
  const index = header.indexOf(column);
  if (index < 0) {
    throw toolError('INVALID_INPUT',
      `Column '${column}' not found in ${file_path}. Available columns: ${header.join(', ')}`);
  }
  const values = [];
  let missing = 0;
  let nonNumeric = 0;
  for (const row of rows) {
    const cellText = (row[index] ?? '').trim();
    if (MISSING.has(cellText)) missing++;
    else if (NUMBER.test(cellText)) values.push(Number(cellText));
    else nonNumeric++;
  }
  if (values.length === 0 && nonNumeric > 0) {
    throw toolError('INVALID_INPUT',
      `Column '${column}' of ${file_path} holds no numeric values (${nonNumeric} text values)`);
  }
  const result = {
    file_path,
    column,
    rows: rows.length,
    count: values.length,
    missing,
    non_numeric: nonNumeric,
    stats: describe(values),
  };
  result.summary_markdown = renderMarkdown(result);
  return result;
}

module.exports = { run, parseCsv };
