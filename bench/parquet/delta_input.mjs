// bench/run delta-input: a Delta table that DuckDB wrote, read by a
// pipeline through delta_table_input, against DuckDB's read_parquet of the
// same files in the same run. Run from tests/oracle (where the tests'
// DuckDB is installed):
//
//   node delta_input.mjs SLUICE_BINARY WORKDIR ROWS FILES BATCH
//
// DuckDB writes ROWS rows (the columns of bench/run parquet) as FILES
// Parquet files with its defaults, and the script writes the table's log
// (one commit, an add per file). DuckDB then times COUNT(*) (from the
// footers) and a query that reads every column; the pipeline's table
// takes the table as a snapshot (max_batch_size BATCH) and a materialized
// view counts it; the time is from the pipeline's start until the view
// counts every row (a start without input is timed too, and taken off).
// Both with the allocator settings `sluice run` makes and with glibc's
// default trim threshold. One JSON line on stdout.
import { DuckDBInstance } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, statSync, readFileSync } from 'node:fs';

const [sluice, work, rowsArg, filesArg, batchArg] = process.argv.slice(2);
const rows = Number(rowsArg), files = Number(filesArg), batch = Number(batchArg);
const table = `${work}/lake`;
mkdirSync(`${table}/_delta_log`, { recursive: true });
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
const per = Math.ceil(rows / files);
const adds = [];
for (let f = 0; f < files; ++f) {
  const name = `part-${String(f).padStart(5, '0')}.parquet`;
  const from = f * per, to = Math.min(rows, from + per);
  await conn.run(`COPY (SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS k,
                          'customer-' || (i % 5000) AS name,
                          ((i % 100000) / 100)::DECIMAL(12,2) AS amount,
                          TIMESTAMP '2024-01-01' + to_microseconds(i * 1000) AS ts,
                          CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 0.5)::DOUBLE END AS x
                        FROM range(${from}, ${to}) t(i))
                  TO '${table}/${name}' (FORMAT parquet)`);
  const size = statSync(`${table}/${name}`).size;
  adds.push({ add: { path: name, partitionValues: {}, size, modificationTime: Date.now(),
                     dataChange: true, stats: JSON.stringify({ numRecords: to - from }) } });
}
const field = (name, type) => ({ name, type, nullable: true, metadata: {} });
const schema = { type: 'struct', fields: [field('id', 'long'), field('k', 'integer'),
  field('name', 'string'), field('amount', 'decimal(12,2)'), field('ts', 'timestamp_ntz'),
  field('x', 'double')] };
const log = [
  { commitInfo: { timestamp: Date.now(), operation: 'WRITE' } },
  { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['timestampNtz'],
                writerFeatures: ['timestampNtz'] } },
  { metaData: { id: 'bench', format: { provider: 'parquet', options: {} },
                schemaString: JSON.stringify(schema), partitionColumns: [], configuration: {},
                createdTime: Date.now() } },
  ...adds,
];
writeFileSync(`${table}/_delta_log/00000000000000000000.json`,
              log.map((a) => JSON.stringify(a)).join('\n') + '\n');
let bytes = 0;
for (const a of adds) bytes += a.add.size;

// DuckDB on the same files.
const glob = `${table}/*.parquet`;
const time = async (sql) => {
  const start = process.hrtime.bigint();
  const r = await conn.runAndReadAll(sql);
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return { secs, rows: Number(r.getRowObjectsJson()[0].n) };
};
const all = `SELECT COUNT(*) AS n, SUM(id), SUM(k), MAX(name), SUM(amount), MAX(ts), SUM(x)
             FROM read_parquet('${glob}')`;
const duckdb = {};
duckdb.count = await time(`SELECT COUNT(*) AS n FROM read_parquet('${glob}')`);
await conn.run('SET threads = 1');
duckdb.scan_1_thread = await time(all);
await conn.run('RESET threads');
duckdb.scan_all_threads = await time(all);

// The pipeline: start, and poll the view until it counts every row.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function runPipeline(name, env, withInput) {
  const dir = `${work}/${name}`;
  mkdirSync(dir, { recursive: true });
  const connectors = withInput
    ? `WITH (connectors = '[{"name": "lake_in", "max_batch_size": ${batch},
         "transport": {"name": "delta_table_input", "config": {"uri": "${table}"}}}]')`
    : '';
  writeFileSync(`${dir}/program.sql`, `
CREATE TABLE t (id BIGINT, k INTEGER, name VARCHAR, amount DECIMAL(12,2), ts TIMESTAMP, x DOUBLE)
  ${connectors};
CREATE MATERIALIZED VIEW c AS SELECT COUNT(*) AS n FROM t;
`);
  const start = process.hrtime.bigint();
  const child = spawn(sluice, ['run', `${dir}/program.sql`, '--port', '0', '--workers', '2'],
                      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  let port = 0;
  while (port === 0) {
    const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) port = Number(m[1]);
    else if (child.exitCode !== null) throw new Error(out);
    else await sleep(5);
  }
  const want = withInput ? rows : 0;
  let secs = 0, peak = 0;
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/query?format=json&sql=` +
                          encodeURIComponent('SELECT n FROM c'));
    const text = (await r.text()).trim();
    const n = text ? Number(JSON.parse(text.split('\n')[0]).n) : 0;
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const m = status.match(/VmHWM:\s+(\d+)/);
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {}
    if (withInput && n < want) {
      const st = await (await fetch(`http://127.0.0.1:${port}/stats`)).json();
      const e = st.inputs.find((i) => i.name === 'lake_in')?.last_error;
      if (e) {
        child.kill('SIGKILL');
        throw new Error(e);
      }
    }
    if (n >= want) {
      secs = Number(process.hrtime.bigint() - start) / 1e9;
      break;
    }
    await sleep(20);
  }
  child.kill('SIGKILL');
  return { secs, peak_rss_bytes: peak };
}
const idle = await runPipeline('idle', {}, false);
const tuned = await runPipeline('tuned', {}, true);
const glibc = await runPipeline('glibc', { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0',
                                           MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_TOP_PAD_: '0',
                                           MALLOC_MMAP_THRESHOLD_: '131072' }, true);
const rate = (p) => rows / Math.max(1e-9, p.secs - idle.secs);
console.log(JSON.stringify({
  rows, files, bytes, max_batch_size: batch, duckdb, start_secs: idle.secs,
  sluice: { ...tuned, rows_per_s: rate(tuned) },
  sluice_glibc_defaults: { ...glibc, rows_per_s: rate(glibc) },
}));
