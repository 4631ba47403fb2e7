// DuckDB's side of bench/run parquet (which runs it from tests/oracle, where
// the tests' DuckDB is installed).
//   node duckdb.mjs write FILE ROWS   writes the benchmark's file
//   node duckdb.mjs read FILE         times DuckDB reading it: COUNT(*) (which
//                                     DuckDB answers from the footer), and a
//                                     query that reads every column, on 1
//                                     thread and on all; one JSON line
import { DuckDBInstance } from '@duckdb/node-api';

const [what, file, rows] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const q = file.replaceAll("'", "''");
if (what === 'write') {
  // Six columns of the kinds a table holds: a key, a small integer, a
  // repeated string (dictionary), a decimal, a timestamp and a double with
  // NULLs; DuckDB's defaults (snappy, row groups of 122,880 rows).
  await conn.run(`COPY (SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS k,
                          'customer-' || (i % 5000) AS name,
                          ((i % 100000) / 100)::DECIMAL(12,2) AS amount,
                          TIMESTAMP '2024-01-01' + to_microseconds(i * 1000) AS ts,
                          CASE WHEN i % 10 = 0 THEN NULL ELSE i * 0.5 END AS x
                        FROM range(${Number(rows)}) t(i))
                  TO '${q}' (FORMAT parquet)`);
} else {
  const time = async (sql) => {
    const start = process.hrtime.bigint();
    const r = await conn.runAndReadAll(sql);
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    return { secs, rows: Number(r.getRowObjectsJson()[0].n) };
  };
  const all = `SELECT COUNT(*) AS n, SUM(id), SUM(k), MAX(name), SUM(amount), MAX(ts), SUM(x)
               FROM read_parquet('${q}')`;
  const out = {};
  out.count = await time(`SELECT COUNT(*) AS n FROM read_parquet('${q}')`);
  await conn.run('SET threads = 1');
  out.scan_1_thread = await time(all);
  await conn.run('RESET threads');
  out.scan_all_threads = await time(all);
  console.log(JSON.stringify(out));
}
