// Runs the SQL statements of a file in DuckDB (in memory, UTC), one per
// `;` at a line's end; prints the rows of the last one, one JSON object per
// line. The Delta input's tests write Parquet files and checkpoints with it
// (COPY ... TO ... (FORMAT parquet)) and compute the rows a table should
// hold.
//
//   node duckdb_run.mjs FILE.sql
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const statements = readFileSync(process.argv[2], 'utf8')
  .split(/;\s*\n/)
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
await conn.run('SET threads = 1');
let last = null;
for (const s of statements) last = await conn.runAndReadAll(s);
if (last !== null) {
  for (const row of last.getRowObjectsJson()) console.log(JSON.stringify(row));
}
