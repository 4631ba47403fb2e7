// The PostgreSQL protocol against the HTTP API, side by side in one run:
//   - loading N CSV rows: psql's \copy (COPY FROM STDIN) against POST
//     /ingress?format=csv of the same file, each until the step that applied
//     the rows is done;
//   - a point query's round trip: a prepared statement over the wire
//     (node-postgres) against GET /query (fetch, keep-alive), Q times each,
//     on a table of 1,000 rows (an ad hoc query scans what it reads, so on
//     a large table the scan, the same for both, would hide the protocol).
//
//   node bench/pgwire/pgwire_bench.mjs --sluice build/release/sluice [--rows N] [--queries Q]
//
// Prints a table and writes bench/results/pgwire-<time>.json.
import {spawn, spawnSync} from 'node:child_process';
import {createRequire} from 'node:module';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pg = createRequire(join(here, '../../tests/pgwire/package.json'))('pg');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const sluice = resolve(option('--sluice', join(here, '../../build/release/sluice')));
const rows = Number(option('--rows', '1000000'));
const queries = Number(option('--queries', '2000'));
const sleep = ms => new Promise(r => setTimeout(r, ms));

const work = mkdtempSync(join(tmpdir(), 'sluice-pgwire-bench-'));
writeFileSync(join(work, 'program.sql'), `
CREATE TABLE a (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, amount DECIMAL(12,2), day DATE)
  WITH ('materialized' = 'true');
CREATE TABLE b (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, amount DECIMAL(12,2), day DATE)
  WITH ('materialized' = 'true');
CREATE TABLE p (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, amount DECIMAL(12,2), day DATE)
  WITH ('materialized' = 'true');
`);
const csv = join(work, 'rows.csv');
await new Promise(res => {
  const out = createWriteStream(csv);
  let i = 0;
  const write = () => {
    let ok = true;
    while (i < rows && ok) {
      let chunk = '';
      for (let k = 0; k < 1000 && i < rows; k++, i++) {
        chunk += `${i},name ${i % 9973},${(i % 100000) / 100},2026-${String(1 + (i % 12)).padStart(2, '0')}-15\n`;
      }
      ok = out.write(chunk);
    }
    if (i < rows) out.once('drain', write); else out.end(res);
  };
  write();
});

const proc = spawn(sluice, ['run', join(work, 'program.sql'), '--port', '0', '--pg-port', '0', '--workers', '2'],
                   {cwd: work, stdio: ['ignore', 'ignore', 'pipe']});
let stderr = '';
proc.stderr.on('data', d => { stderr += d; });
let port = 0, api = '';
for (let i = 0; i < 600 && !port; i++) {
  const m = /PostgreSQL clients: psql -h \S+ -p (\d+)/.exec(stderr);
  if (m) {
    port = Number(m[1]);
    api = /listening on (\S+)/.exec(stderr)[1];
  } else {
    await sleep(50);
  }
}
if (!port) throw new Error('sluice did not start: ' + stderr);

// ---- loading
let t = performance.now();
const copy = spawnSync('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'bench', '-d', 'sluice',
                                '-c', `\\copy a from ${csv} csv`], {encoding: 'utf8'});
const copySecs = (performance.now() - t) / 1000;
if (copy.status !== 0 || !/COPY \d+/.test(copy.stdout)) throw new Error('COPY failed: ' + copy.stderr);

t = performance.now();
const post = spawnSync('curl', ['-sS', '-X', 'POST', '--data-binary', `@${csv}`, '-H', 'Content-Type: text/csv',
                                `${api}/ingress/b?format=csv`], {encoding: 'utf8'});
const token = JSON.parse(post.stdout).token;
for (;;) {
  const s = await (await fetch(`${api}/completion_status?token=${token}`)).json();
  if (s.status === 'complete') break;
  await sleep(2);
}
const postSecs = (performance.now() - t) / 1000;

// ---- point queries
const small = spawnSync('sh', ['-c', `head -n 1000 ${csv} | curl -sS -X POST --data-binary @- ${api}/ingress/p?format=csv`],
                        {encoding: 'utf8'});
const smallToken = JSON.parse(small.stdout).token;
for (;;) {
  const s = await (await fetch(`${api}/completion_status?token=${smallToken}`)).json();
  if (s.status === 'complete') break;
  await sleep(2);
}
const client = new pg.Client({host: '127.0.0.1', port, user: 'bench', database: 'sluice'});
await client.connect();
const ids = Array.from({length: queries}, (_, i) => (i * 7919) % 1000);
const wire = [], http = [];
for (const id of ids.slice(0, 50)) {  // warm both paths
  await client.query({name: 'point', text: 'SELECT * FROM p WHERE id = $1', values: [id]});
  await (await fetch(`${api}/query?format=json&sql=${encodeURIComponent(`SELECT * FROM p WHERE id = ${id}`)}`)).text();
}
for (const id of ids) {
  let s = performance.now();
  const r = await client.query({name: 'point', text: 'SELECT * FROM p WHERE id = $1', values: [id]});
  wire.push(performance.now() - s);
  if (r.rows.length !== 1) throw new Error('point query found ' + r.rows.length + ' rows');
  s = performance.now();
  const text = await (await fetch(`${api}/query?format=json&sql=${encodeURIComponent(`SELECT * FROM p WHERE id = ${id}`)}`)).text();
  http.push(performance.now() - s);
  if (!text.includes(`"id":${id}`)) throw new Error('HTTP point query: ' + text);
}
await client.end();
proc.kill('SIGTERM');
await new Promise(res => proc.on('exit', res));
rmSync(work, {recursive: true, force: true});

const median = xs => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const result = {
  rows, queries,
  copy_from_stdin: {seconds: copySecs, rows_per_sec: rows / copySecs},
  post_ingress_csv: {seconds: postSecs, rows_per_sec: rows / postSecs},
  copy_over_post: postSecs / copySecs,
  point_query_ms: {pgwire_median: median(wire), http_median: median(http)},
  http_over_pgwire: median(http) / median(wire),
};
console.log(`loading ${rows} CSV rows, until applied:`);
console.log(`  COPY FROM STDIN (psql \\copy)   ${copySecs.toFixed(2)} s  ${(rows / copySecs).toFixed(0)} rows/s`);
console.log(`  POST /ingress?format=csv       ${postSecs.toFixed(2)} s  ${(rows / postSecs).toFixed(0)} rows/s`);
console.log(`  COPY / POST rate: ${(postSecs / copySecs).toFixed(2)}`);
console.log(`point query round trip, median of ${queries}:`);
console.log(`  prepared statement over the wire  ${median(wire).toFixed(3)} ms`);
console.log(`  GET /query                        ${median(http).toFixed(3)} ms`);
console.log(`  /query time / wire time: ${(median(http) / median(wire)).toFixed(2)}`);
const dir = join(here, '../results');
mkdirSync(dir, {recursive: true});
const file = join(dir, `pgwire-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}.json`);
writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
console.log(`wrote ${file}`);
