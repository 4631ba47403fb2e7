// An independent reader of a Sluice Delta table in cdc mode: replays the
// Delta log, reads the live Parquet files with DuckDB, applies the ops
// (__sluice_op 'i' adds a row, 'd' takes one away) and compares the result
// with the view's rows (EXPECTED: one JSON object per line, as Sluice's
// /query?format=json prints them).
//
//   node delta_check.mjs TABLE_DIR EXPECTED.jsonl
//
// Prints one JSON object: {ok, versions, files, rows, steps, missing, extra,
// error}; exits 0 when the table holds exactly the expected rows, 1 when it
// does not, 2 when the table cannot be read (a damaged or missing log
// entry, a file that is not there).
//
// It also checks the log itself: versions are contiguous from 0, every line
// is a JSON action, each data file's rows carry their commit's step, and no
// step is committed twice (exactly once).
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const [dir, expectedFile] = process.argv.slice(2);

function fail(code, error, extra = {}) {
  console.log(JSON.stringify({ ok: false, error, ...extra }));
  process.exit(code);
}

// ---- the log
const logDir = path.join(dir, '_delta_log');
if (!fs.existsSync(logDir)) fail(2, `no _delta_log in ${dir}`);
const names = fs.readdirSync(logDir).filter((n) => /^\d{20}\.json$/.test(n)).sort();
let schema = null;
const live = new Map(); // path -> [step, version] of its commit
const steps = [];
names.forEach((name, i) => {
  if (Number(name.slice(0, 20)) !== i) fail(2, `version ${i} is missing from the log`);
  const lines = fs.readFileSync(path.join(logDir, name), 'utf8').split('\n').filter((l) => l);
  const actions = lines.map((l, n) => {
    try {
      return JSON.parse(l);
    } catch {
      return fail(2, `${name} line ${n + 1} is not JSON: the log is damaged`);
    }
  });
  let step = null;
  for (const a of actions) {
    if (a.txn) {
      step = a.txn.version;
      steps.push(step);
    }
  }
  for (const a of actions) {
    if (a.metaData) schema = JSON.parse(a.metaData.schemaString);
    if (a.add) live.set(a.add.path, [step, i]);
    if (a.remove) live.delete(a.remove.path);
  }
});
// Exactly once: no step has live files from two commits.
const versionOfStep = new Map();
for (const [file, [step, version]] of live) {
  if (versionOfStep.has(step) && versionOfStep.get(step) !== version) {
    fail(1, `step ${step} is committed twice (versions ${versionOfStep.get(step)} and ${version})`);
  }
  versionOfStep.set(step, version);
}
if (!schema) fail(2, 'the log has no metaData');
const fields = schema.fields.filter((f) => !f.name.startsWith('__sluice_'));

// ---- canonical values, by Delta type
function timeMicros(s) {
  const m = /^(\d+):(\d+):(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return s;
  const frac = (m[4] || '').padEnd(6, '0').slice(0, 6);
  return String(((BigInt(m[1]) * 60n + BigInt(m[2])) * 60n + BigInt(m[3])) * 1000000n + BigInt(frac));
}
function canon(v, type) {
  if (v === null || v === undefined) return null;
  if (typeof type === 'string') {
    if (['byte', 'short', 'integer', 'long'].includes(type)) {
      if (typeof v === 'string' && v.includes(':')) return timeMicros(v); // TIME as long
      return String(BigInt(v));
    }
    if (type === 'float' || type === 'double') return Number(v);
    const dec = /^decimal\((\d+),(\d+)\)$/.exec(type);
    if (dec) return Number(v).toFixed(Number(dec[2]));
    if (type === 'boolean') return v === true || v === 'true';
    if (type === 'date') return String(v).slice(0, 10);
    if (type === 'timestamp_ntz' || type === 'timestamp') {
      return String(v).replace('T', ' ').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
    }
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  if (type.type === 'array') return v.map((e) => canon(e, type.elementType));
  if (type.type === 'map') {
    const entries = Array.isArray(v) ? v.map((e) => [e.key, e.value]) : Object.entries(v);
    return entries
      .map(([k, x]) => [canon(k, type.keyType), canon(x, type.valueType)])
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  if (type.type === 'struct') {
    const out = {};
    for (const f of type.fields) out[f.name] = canon(v[f.name], f.type);
    return out;
  }
  return v;
}
const key = (row) => JSON.stringify(fields.map((f) => canon(row[f.name], f.type)));

// ---- the data
const counts = new Map();
let rows = 0;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
for (const [file, [step]] of live) {
  const full = path.join(dir, file);
  if (!fs.existsSync(full)) fail(2, `the log names ${file}, which is not there`);
  const r = await conn.runAndReadAll(`SELECT * FROM read_parquet('${full.replaceAll("'", "''")}')`);
  for (const row of r.getRowObjectsJson()) {
    ++rows;
    if (String(row.__sluice_step) !== String(step)) {
      fail(1, `${file} holds a row of step ${row.__sluice_step} in the commit of step ${step}`);
    }
    const k = key(row);
    counts.set(k, (counts.get(k) || 0) + (row.__sluice_op === 'i' ? 1 : -1));
  }
}
for (const line of fs.readFileSync(expectedFile, 'utf8').split('\n')) {
  if (!line) continue;
  const k = key(JSON.parse(line));
  counts.set(k, (counts.get(k) || 0) - 1);
}
const missing = [];
const extra = [];
for (const [k, n] of counts) {
  if (n < 0) missing.push({ row: JSON.parse(k), times: -n });
  if (n > 0) extra.push({ row: JSON.parse(k), times: n });
}
const ok = missing.length === 0 && extra.length === 0;
console.log(
  JSON.stringify({
    ok,
    versions: names.length,
    files: live.size,
    rows,
    steps,
    missing: missing.slice(0, 20),
    extra: extra.slice(0, 20),
  }),
);
process.exit(ok ? 0 : 1);
