// DuckDB's side of bench/run nexmark-duckdb (run from tests/oracle, where
// the tests' DuckDB is installed): each Nexmark query's final answer
// computed once, in batch, over the events the generator wrote as Delta
// tables (EVENTS/person, EVENTS/auction, EVENTS/bid: Parquet files with two
// extra columns, __sluice_op and __sluice_step, which the views drop).
//
//   node duckdb.mjs EVENTS THREADS QUERY_FILE... [--check DIR] [--side-input CSV]
//
// Each query file is one of bench/nexmark/q*.sql, in our dialect: its
// `CREATE VIEW name AS` becomes `CREATE TEMP TABLE result AS`; a `CREATE
// TABLE` in it (q13's side input, fed by a connector) is left out, the
// table `side_input (key, value)` being read from the CSV file given; our
// window table functions are DuckDB table macros (tumble and hop, with
// windows aligned at multiples of their size or slide, as ours are). The
// time of a query includes reading its events from the Parquet files.
// With --check DIR, the result is compared with DIR/<query>.jsonl, the
// view's changes as our pipeline wrote them (inserts and deletes, JSON
// lines): the row counts and the sum of every numeric column must agree.
// Prints one JSON line per query: {query, seconds, rows, check}.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const checkAt = args.indexOf('--check');
const checkDir = checkAt >= 0 ? args[checkAt + 1] : null;
if (checkAt >= 0) args.splice(checkAt, 2);
const sideAt = args.indexOf('--side-input');
const sideInput = sideAt >= 0 ? args[sideAt + 1] : null;
if (sideAt >= 0) args.splice(sideAt, 2);
const [events, threads, ...queries] = args;

const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await instance.connect();
for (const t of ['person', 'auction', 'bid']) {
  const glob = path.join(events, t, '*.parquet').replaceAll("'", "''");
  await conn.run(`CREATE VIEW ${t} AS
                  SELECT * EXCLUDE (__sluice_op, __sluice_step) FROM read_parquet('${glob}')`);
}
if (sideInput) {
  await conn.run(`CREATE TABLE side_input AS SELECT * FROM read_csv('${sideInput.replaceAll("'", "''")}',
                  header = false, columns = {'key': 'BIGINT', 'value': 'VARCHAR'})`);
}
await conn.run(`CREATE MACRO tumble(ts, size) AS TABLE
                SELECT time_bucket(size, ts) AS window_start,
                       time_bucket(size, ts) + size AS window_end`);
await conn.run(`CREATE MACRO hop(ts, slide, size) AS TABLE
                SELECT time_bucket(slide, ts) - k * slide AS window_start,
                       time_bucket(slide, ts) - k * slide + size AS window_end
                FROM range(0, CAST(epoch(size) / epoch(slide) AS BIGINT)) r(k)`);

// Row count and per-column sums of numeric columns of `rows` (objects).
function summary(rows) {
  const sums = {};
  for (const r of rows) {
    for (const [k, v] of Object.entries(r)) {
      const x = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : null;
      if (x !== null) sums[k] = (sums[k] ?? 0) + x;
    }
  }
  return { rows: rows.length, sums };
}

// The view's final rows from its change log.
function viewRows(file) {
  const counts = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    const [op, row] = j.insert ? [1, j.insert] : [-1, j.delete];
    const key = JSON.stringify(row);
    counts.set(key, (counts.get(key) ?? 0) + op);
  }
  const rows = [];
  for (const [key, n] of counts) for (let i = 0; i < n; ++i) rows.push(JSON.parse(key));
  return rows;
}

function close(a, b) {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

for (const file of queries) {
  const name = path.basename(file, '.sql');
  const sql = fs.readFileSync(file, 'utf8')
    .split('\n').filter((l) => !l.startsWith('--')).join('\n')
    .replace(/CREATE\s+TABLE\s[^;]*;/gi, '')
    .replace(/CREATE\s+VIEW\s+\w+\s+AS/i, 'CREATE OR REPLACE TEMP TABLE result AS');
  const start = process.hrtime.bigint();
  await conn.run(sql);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const n = Number((await conn.runAndReadAll('SELECT COUNT(*) AS n FROM result')).getRowObjectsJson()[0].n);
  const out = { query: name, seconds, rows: n };
  if (checkDir) {
    const ours = summary(viewRows(path.join(checkDir, `${name}.jsonl`)));
    const theirs = summary((await conn.runAndReadAll('SELECT * FROM result')).getRowObjectsJson());
    const bad = [];
    if (ours.rows !== theirs.rows) bad.push(`rows ${ours.rows} vs DuckDB's ${theirs.rows}`);
    for (const [k, v] of Object.entries(theirs.sums)) {
      if (!(k in ours.sums) || !close(ours.sums[k], v)) bad.push(`sum(${k}) ${ours.sums[k]} vs DuckDB's ${v}`);
    }
    out.check = bad.length === 0 ? 'same' : bad.join('; ');
  }
  console.log(JSON.stringify(out));
}
