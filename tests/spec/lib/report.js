'use strict';
// Results: the per-folder table, failure causes grouped for humans, results.json, the baseline.

const fs = require('fs');

// A short key that groups failures with the same cause (values and indexes stripped).
function failureCause(reason) {
  let r = String(reason || '');
  r = r.replace(/^operation \d+ /, 'operation ');
  const server = r.match(/unexpected error (MongoServerError|MongoBulkWriteError|MongoWriteConcernError)( \d+)?( [A-Za-z][A-Za-z0-9]*)?: (.*)$/);
  if (server) {
    return `server error${server[2] || ''}${server[3] || ''}: ${normalize(server[4])}`;
  }
  const unexpected = r.match(/unexpected error (\w+)( \d+)?( [A-Za-z][A-Za-z0-9]*)?: (.*)$/);
  if (unexpected) {
    return `client error ${unexpected[1]}${unexpected[2] || ''}: ${normalize(unexpected[4])}`;
  }
  const op = (r.match(/^operation \((\w+) on/) || [])[1];
  if (/expectResult mismatch/.test(r)) {
    const at = r.match(/: ([^:]*): expectResult mismatch: (.*)$/);
    return `${op}: result differs${at ? ` at ${pathPattern(at[1])} (${kindOf(at[2])})` : ''}`;
  }
  if (/expected an error/.test(r)) return `${op}: expected an error, the operation succeeded`;
  const expectError = r.match(/expectError\.(\w+)(: ([^;]*))?; the error was (.*)$/);
  if (expectError) {
    return `${op}: expectError.${expectError[1]} not met` +
      (expectError[3] ? ` (${normalize(expectError[3])})` : '') +
      ` — got ${normalize(expectError[4]).slice(0, 100)}`;
  }
  const events = r.match(/^expectEvents\[[^\]]*\]: (.*)$/);
  if (events) {
    const count = events[1].match(/^expected \d+ (\w+) events.*got \d+/);
    if (count) return `expectEvents: wrong number of ${count[1]} events`;
    const at = events[1].match(/^event \d+\.?([^:]*): (.*?)( — actual.*)?$/);
    if (at) return `expectEvents: ${pathPattern(at[1]) || 'event'} ${kindOf(at[2])}`;
    return `expectEvents: ${normalize(events[1]).slice(0, 100)}`;
  }
  const outcome = r.match(/^outcome mismatch in \S+ at ([^:]*): (.*)$/);
  if (outcome) return `outcome differs at ${pathPattern(outcome[1])} (${kindOf(outcome[2])})`;
  if (/^initialData/.test(r)) return `initialData: ${normalize(r.replace(/^initialData: [^:]*: /, ''))}`;
  return normalize(r).slice(0, 160);
}

function kindOf(message) {
  if (/^missing/.test(message)) return 'missing field';
  if (/^unexpected field/.test(message)) return 'unexpected field';
  if (/elements, got/.test(message)) return 'different length';
  if (/expected to be absent/.test(message)) return 'field should be absent';
  if (/expected to exist/.test(message)) return 'field should exist';
  if (/expected type/.test(message)) return 'wrong type';
  if (/expected a document/.test(message)) return 'not a document';
  if (/expected an array/.test(message)) return 'not an array';
  if (/^expected .*, got/.test(message)) return 'different value';
  return normalize(message).slice(0, 60);
}

function pathPattern(p) {
  return String(p || '').trim().replace(/\[\d+\]/g, '[]').replace(/^\$/, '').replace(/^\./, '');
}

function normalize(s) {
  return String(s)
    .replace(/[0-9a-f]{24}/gi, '<oid>')
    .replace(/\b\d{3,}\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
}

function summarize(results) {
  const folders = new Map();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) {
    if (!folders.has(r.folder)) folders.set(r.folder, { passed: 0, failed: 0, skipped: 0 });
    folders.get(r.folder)[r.status]++;
    totals[r.status]++;
  }
  return { folders: Object.fromEntries([...folders.entries()].sort()), totals };
}

function table(summary) {
  const rows = [['folder', 'passed', 'failed', 'skipped']];
  for (const [folder, c] of Object.entries(summary.folders)) {
    rows.push([folder, c.passed, c.failed, c.skipped]);
  }
  const t = summary.totals;
  rows.push(['total', t.passed, t.failed, t.skipped]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((v, i) =>
    (i === 0 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ')).join('\n');
}

// [{ cause, count, examples: [id, ...] }] sorted by count, for failures (or skips with byReason).
function groupBy(results, status, keyOf) {
  const groups = new Map();
  for (const r of results.filter((x) => x.status === status)) {
    const key = keyOf(r);
    if (!groups.has(key)) groups.set(key, { cause: key, count: 0, examples: [] });
    const g = groups.get(key);
    g.count++;
    if (g.examples.length < 3) g.examples.push(r.id);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause));
}

function readBaseline(file) {
  try {
    const list = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Array.isArray(list) ? list : [];
  } catch (_) {
    return [];
  }
}

// New baseline: passed tests of this run, plus entries of the old baseline not run this time.
function updatedBaseline(old, results) {
  const ran = new Set(results.map((r) => r.id));
  const kept = old.filter((id) => !ran.has(id));
  const passed = results.filter((r) => r.status === 'passed').map((r) => r.id);
  return [...new Set([...kept, ...passed])].sort();
}

// Baseline tests that ran this time and did not pass.
function regressions(baseline, results) {
  const byId = new Map(results.map((r) => [r.id, r]));
  return baseline.filter((id) => byId.has(id) && byId.get(id).status === 'failed');
}

module.exports = {
  failureCause,
  summarize,
  table,
  groupBy,
  readBaseline,
  updatedBaseline,
  regressions,
  normalize,
};
