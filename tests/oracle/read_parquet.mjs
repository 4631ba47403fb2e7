// Prints the rows of a Parquet file as read by DuckDB, one JSON object per
// line, and then its schema as DuckDB sees it (a last line {"schema": ...}).
//
//   node read_parquet.mjs FILE.parquet
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const quoted = file.replaceAll("'", "''");
const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet('${quoted}')`);
for (const row of reader.getRowObjectsJson()) console.log(JSON.stringify(row));
const schema = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${quoted}')`);
console.log(JSON.stringify({ schema: schema.getRowObjectsJson().map((r) => [r.column_name, r.column_type]) }));
