// DuckDB's side of bench/ivm: loads the tables from CSV files, then for
// each change applies it and runs the view's query again into a table,
// timing each. Input: a JSON spec written by ivm_bench. Prints one JSON
// object: {load, per_change: [seconds...], check}.
import fs from 'node:fs';

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { DuckDBInstance } = await import(spec.module);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const run = (sql) => conn.run(sql);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const now = () => Number(process.hrtime.bigint()) / 1e9;

let t0 = now();
for (const t of spec.tables) {
  await run(`CREATE TABLE ${t.name} ${t.columns}`);
  await run(`COPY ${t.name} FROM ${q(t.csv)} (FORMAT csv, HEADER false)`);
}
await run(`CREATE TABLE v AS ${spec.view}`);
const load = now() - t0;
const perChange = [];
for (const change of spec.changes) {
  t0 = now();
  await run('BEGIN');
  for (const part of change) {
    const t = spec.tables.find((x) => x.name === part.table);
    if (part.delete_csv) {
      const cols = t.key.join(', ');
      await run(
        `DELETE FROM ${t.name} WHERE (${cols}) IN (SELECT * FROM read_csv(${q(part.delete_csv)}, header = false))`,
      );
    }
    if (part.insert_csv) {
      await run(`COPY ${t.name} FROM ${q(part.insert_csv)} (FORMAT csv, HEADER false)`);
    }
  }
  await run(`CREATE OR REPLACE TABLE v AS ${spec.view}`);
  await run('COMMIT');
  perChange.push(now() - t0);
}
const check = await conn.runAndReadAll(spec.check);
const row = check.getRows()[0].map((x) => (x === null ? '' : String(x)));
console.log(JSON.stringify({ load, per_change: perChange, check: row.join('|') }));
