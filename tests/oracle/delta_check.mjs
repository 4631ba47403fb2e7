// An independent reader of a Sluice Delta table: replays the Delta log,
// reads the live Parquet files with DuckDB and compares the result with the
// view's rows (EXPECTED: one JSON object per line, as Sluice's
// /query?format=json prints them). In cdc mode it applies the ops
// (__sluice_op 'i' adds a row, 'd' takes one away); in merge mode (no op
// column) every live row counts once, less the rows each file's deletion
// vector deletes, decoded here from the protocol's description (Z85,
// the vector file's framing and CRC-32, 64-bit Roaring bitmaps).
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
import zlib from 'node:zlib';

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
const live = new Map(); // path -> [step, version, deletion vector] of its commit
const dvId = (dv) => (dv ? dv.storageType + dv.pathOrInlineDv + (dv.offset != null ? '@' + dv.offset : '') : '');
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
    if (a.remove) {
      const l = live.get(a.remove.path);
      if (l && dvId(l[2]) === dvId(a.remove.deletionVector)) live.delete(a.remove.path);
    }
  }
  for (const a of actions) {
    if (a.add) live.set(a.add.path, [step, i, a.add.deletionVector || null]);
  }
});
// Exactly once: no step has live files from two commits.
const versionOfStep = new Map();
for (const [file, [step, version]] of live) {
  if (step === null) continue; // a compaction's commit, of no step
  if (versionOfStep.has(step) && versionOfStep.get(step) !== version) {
    fail(1, `step ${step} is committed twice (versions ${versionOfStep.get(step)} and ${version})`);
  }
  versionOfStep.set(step, version);
}
if (!schema) fail(2, 'the log has no metaData');
const merge = !schema.fields.some((f) => f.name === '__sluice_op');

// ---- deletion vectors
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
function z85(text) {
  const out = Buffer.alloc((text.length / 5) * 4);
  for (let i = 0; i < text.length; i += 5) {
    let v = 0;
    for (let j = 0; j < 5; ++j) v = v * 85 + Z85.indexOf(text[i + j]);
    out.writeUInt32BE(v, (i / 5) * 4);
  }
  return out;
}
function roaring32(b, at, high, out) {
  const start = at;
  const cookie = b.readUInt32LE(at);
  let n;
  let runs = null;
  if (cookie === 12346) {
    n = b.readUInt32LE(at + 4);
    at += 8;
  } else if ((cookie & 0xffff) === 12347) {
    n = (cookie >>> 16) + 1;
    at += 4;
    runs = b.subarray(at, at + Math.ceil(n / 8));
    at += Math.ceil(n / 8);
  } else {
    throw new Error(`bad roaring cookie ${cookie}`);
  }
  const keys = [];
  const cards = [];
  for (let i = 0; i < n; ++i, at += 4) {
    keys.push(b.readUInt16LE(at));
    cards.push(b.readUInt16LE(at + 2) + 1);
  }
  let offsets = null;
  if (!runs || n >= 4) {
    offsets = [];
    for (let i = 0; i < n; ++i, at += 4) offsets.push(b.readUInt32LE(at));
  }
  for (let i = 0; i < n; ++i) {
    if (offsets) at = start + offsets[i];
    const base = high * 4294967296 + keys[i] * 65536;
    if (runs && (runs[i >> 3] >> (i & 7)) & 1) {
      const r = b.readUInt16LE(at);
      at += 2;
      for (let k = 0; k < r; ++k, at += 4) {
        const s0 = b.readUInt16LE(at);
        const len = b.readUInt16LE(at + 2);
        for (let v = s0; v <= s0 + len; ++v) out.add(base + v);
      }
    } else if (cards[i] > 4096) {
      for (let w = 0; w < 8192; ++w) {
        const byte = b[at + w];
        for (let bit = 0; bit < 8; ++bit) if ((byte >> bit) & 1) out.add(base + w * 8 + bit);
      }
      at += 8192;
    } else {
      for (let k = 0; k < cards[i]; ++k, at += 2) out.add(base + b.readUInt16LE(at));
    }
  }
  return at;
}
function deletedRows(dv) {
  let bitmap;
  if (dv.storageType === 'i') {
    bitmap = z85(dv.pathOrInlineDv).subarray(0, dv.sizeInBytes);
  } else {
    let file;
    if (dv.storageType === 'u') {
      const p = dv.pathOrInlineDv;
      const u = z85(p.slice(-20)).toString('hex');
      const uuid = `${u.slice(0, 8)}-${u.slice(8, 12)}-${u.slice(12, 16)}-${u.slice(16, 20)}-${u.slice(20)}`;
      file = path.join(dir, p.slice(0, -20), `deletion_vector_${uuid}.bin`);
    } else {
      file = dv.pathOrInlineDv.replace(/^file:\/\//, '');
    }
    if (!fs.existsSync(file)) fail(2, `the deletion vector file ${file} is not there`);
    const bytes = fs.readFileSync(file);
    if (bytes[0] !== 1) fail(1, `${file}: deletion vector file version ${bytes[0]}`);
    const size = bytes.readUInt32BE(dv.offset);
    if (size !== dv.sizeInBytes) fail(1, `${file}@${dv.offset}: size ${size}, descriptor ${dv.sizeInBytes}`);
    bitmap = bytes.subarray(dv.offset + 4, dv.offset + 4 + size);
    const crc = bytes.readUInt32BE(dv.offset + 4 + size);
    if (zlib.crc32 && zlib.crc32(bitmap) !== crc) fail(1, `${file}@${dv.offset}: CRC mismatch`);
  }
  if (bitmap.readUInt32LE(0) !== 1681511377) fail(1, `deletion vector magic ${bitmap.readUInt32LE(0)}`);
  const count = Number(bitmap.readBigUInt64LE(4));
  const out = new Set();
  let at = 12;
  for (let i = 0; i < count; ++i) {
    const high = bitmap.readUInt32LE(at);
    at = roaring32(bitmap, at + 4, high, out);
  }
  if (out.size !== dv.cardinality) fail(1, `deletion vector holds ${out.size} rows, cardinality ${dv.cardinality}`);
  return out;
}
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
      // A timestamp (with time zone) is an instant, read and written in UTC.
      const s = type === 'timestamp' ? String(v).replace(/(Z|[+-]00(:?00)?)$/, '') : String(v);
      return s.replace('T', ' ').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
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
await conn.run("SET TimeZone = 'UTC'");
let deleted = 0;
for (const [file, [step, , dv]] of live) {
  const full = path.join(dir, file);
  if (!fs.existsSync(full)) fail(2, `the log names ${file}, which is not there`);
  const gone = dv ? deletedRows(dv) : new Set();
  const r = await conn.runAndReadAll(
    `SELECT * FROM read_parquet('${full.replaceAll("'", "''")}', file_row_number = true)`,
  );
  for (const row of r.getRowObjectsJson()) {
    if (gone.has(Number(row.file_row_number))) {
      ++deleted;
      continue;
    }
    ++rows;
    if (merge) {
      const k = key(row);
      counts.set(k, (counts.get(k) || 0) + 1);
      continue;
    }
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
    deleted,
    merge,
    steps,
    missing: missing.slice(0, 20),
    extra: extra.slice(0, 20),
  }),
);
process.exit(ok ? 0 : 1);
