// Writes Parquet files with DuckDB, for tests of Sluice's Parquet reader:
// each case's query, with each compression and both Parquet versions (v1:
// dictionaries and PLAIN in DATA_PAGE; v2: DATA_PAGE_V2 with the delta
// encodings and BYTE_STREAM_SPLIT), into DIR/<case>-<codec>-<version>.parquet.
// Beside each file, <file>.jsonl holds DuckDB's own reading of it, one JSON
// object per row (timestamps with a time zone or in nanoseconds read as
// TIMESTAMP, the type Sluice reads them as). Last, one line on stdout:
// {"files": [...], "encodings": [...], "codecs": [...]} from DuckDB's
// parquet_metadata(), so that the test knows what the files exercise.
//
//   node write_parquet_cases.mjs DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';

const dir = process.argv[2];
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
await conn.run('SET threads = 1');

// NULL every 7th row (some columns at other rows).
const n = (expr, k = 7) => `CASE WHEN i % ${k} = 3 THEN NULL ELSE ${expr} END`;
const cases = {
  ints: `SELECT ${n('(i % 256 - 128)::TINYINT')} AS ti, ${n('(i * 37 % 65536 - 32768)::SMALLINT')} AS si,
           ${n('(i * 7919 - 1000000)::INTEGER')} AS i32, ${n('(i * 1000000007 - 123456789012)::BIGINT')} AS i64,
           ${n('(i % 256)::UTINYINT')} AS u8, ${n('(i * 31 % 65536)::USMALLINT')} AS u16,
           ${n('(i * 2654435761 % 4294967296)::UINTEGER')} AS u32,
           ${n('(i * 11400714819323198485 % 18446744073709551616)::UBIGINT')} AS u64,
           (i % 3 = 0) AS b, ${n('i % 5 = 1', 4)} AS bn
         FROM range(3000) t(i)`,
  decimals: `SELECT ${n('((i * 7 % 19999 - 9999) / 10)::DECIMAL(4,1)')} AS d4,
               ${n('(((i * 12345) % 10000000 - 5000000) / 100)::DECIMAL(9,2)')} AS d9,
               ${n('(i::DECIMAL(18,4) * 123456.789 - 9999999)::DECIMAL(18,4)')} AS d18,
               ${n("(CASE WHEN i % 2 = 1 THEN '-' ELSE '' END || (i::HUGEINT * 987654321098765432)::VARCHAR || '.' || lpad((i * 7)::VARCHAR, 10, '0'))::DECIMAL(38,10)")} AS d38,
               ${n('(i % 10)::DECIMAL(5,0)')} AS d5dict
             FROM range(3000) t(i)`,
  floats: `SELECT ${n('(i * 0.25 - 100)::FLOAT')} AS f, ${n('i * 1.0e10 / 7 - 3.5')} AS d,
             ${n('(i % 4)::DOUBLE')} AS ddict
           FROM range(3000) t(i)`,
  times: `SELECT ${n("DATE '1970-01-01' + (i * 37 % 40000 - 20000)::INTEGER")} AS dt,
            ${n("TIME '00:00:00' + to_microseconds(i * 1234567)")} AS tm,
            ${n("TIMESTAMP '2000-01-01' + to_microseconds(i * 987654321123)")} AS ts,
            ${n("(TIMESTAMP '2000-01-01' + to_milliseconds(i * 987654321))::TIMESTAMP_MS")} AS ts_ms,
            ${n("(TIMESTAMP '2000-01-01' + to_seconds(i * 9876))::TIMESTAMP_S")} AS ts_s,
            ${n("(TIMESTAMP '2000-01-01' + to_microseconds(i * 987654321123))::TIMESTAMP_NS")} AS ts_ns,
            ${n("(TIMESTAMP '2000-01-01' + to_microseconds(i * 987654321123))::TIMESTAMPTZ")} AS tstz
          FROM range(3000) t(i)`,
  strings: `SELECT ${n("'value-' || (i % 20)")} AS dict, ${n("'unique ' || i || ' ' || repeat('x', i % 13)")} AS plain,
              ${n("CASE WHEN i % 2 = 0 THEN 'héllo' ELSE 'wörld ✓' END")} AS utf8,
              ${n("('\\x00\\x01' || i)::BLOB")} AS bin, ${n("''")} AS empty,
              ${n("(i % 3)::VARCHAR::ENUM('0', '1', '2')")} AS en,
              ${n("md5(i::VARCHAR)::UUID")} AS u
            FROM range(3000) t(i)`,
  nested: `SELECT ${n('[i, NULL, i * 2]')} AS list,
             ${n("CASE WHEN i % 5 = 0 THEN [] ELSE [[i::VARCHAR], [], NULL, ['a', NULL]] END")} AS lists,
             ${n("{'a': i::INTEGER, 'b': [i % 3, NULL], 'c': {'x': 'v' || i}}")} AS st,
             ${n("CASE WHEN i % 4 = 0 THEN MAP {} ELSE MAP {'k' || i: i, 'z': NULL} END")} AS m,
             ${n("[{'p': i, 'q': 'q' || i}, NULL, {'p': NULL, 'q': NULL}]")} AS list_of_structs,
             ${n("{'inner': CASE WHEN i % 3 = 0 THEN NULL ELSE [i] END}", 5)} AS struct_of_list
           FROM range(3000) t(i)`,
};

const files = [];
for (const [name, query] of Object.entries(cases)) {
  for (const codec of ['uncompressed', 'snappy', 'zstd', 'gzip']) {
    for (const version of ['v1', 'v2']) {
      const file = `${dir}/${name}-${codec}-${version}.parquet`;
      await conn.run(`COPY (${query}) TO '${file}' (FORMAT parquet, COMPRESSION ${codec},
                      ROW_GROUP_SIZE 1024, PARQUET_VERSION ${version})`);
      files.push(file);
    }
  }
}
// One larger file, so that column chunks hold several pages.
{
  const file = `${dir}/large-zstd-v1.parquet`;
  await conn.run(`COPY (SELECT i::BIGINT AS id, 'name ' || (i % 1000) AS name, ${n('i * 0.5')} AS x,
                        ${n('[i % 10, i % 100]')} AS tags
                      FROM range(300000) t(i))
                  TO '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 150000)`);
  files.push(file);
}

for (const file of files) {
  const describe = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  const cols = describe.getRowObjectsJson().map((r) => {
    const q = `"${r.column_name}"`;
    return ['TIMESTAMP WITH TIME ZONE', 'TIMESTAMP_NS'].includes(r.column_type) ? `${q}::TIMESTAMP AS ${q}` : q;
  });
  const reader = await conn.runAndReadAll(`SELECT ${cols.join(', ')} FROM read_parquet('${file}')`);
  const lines = reader.getRowObjectsJson().map((row) => JSON.stringify(row));
  writeFileSync(`${file}.jsonl`, lines.join('\n') + '\n');
}

const meta = await conn.runAndReadAll(
  `SELECT DISTINCT unnest(string_split(encodings, ', ')) AS e, compression
   FROM parquet_metadata([${files.map((f) => `'${f}'`).join(', ')}])`);
const rows = meta.getRowObjectsJson();
console.log(JSON.stringify({
  files,
  encodings: [...new Set(rows.map((r) => r.e))].sort(),
  codecs: [...new Set(rows.map((r) => r.compression))].sort(),
}));
