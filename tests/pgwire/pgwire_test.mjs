// The PostgreSQL protocol with real clients: Debian's psql and node-postgres
// (`pg` from npm). Starts `sluice run` with --pg-port (on one host, or with
// --hosts N on N hosts), API keys as passwords (SCRAM-SHA-256) and SSL, and
// checks what a user of either client would do:
//
//   node tests/pgwire/pgwire_test.mjs --sluice build/release/sluice [--hosts 3]
//
// psql: a query, \copy in from a CSV file, \dt, \dv and \d, a syntax error with
// its caret, a wrong password, SSL. pg: a parameterized query, a prepared
// statement reused, a transaction of inserts into two tables that a view
// sees at once, SUBSCRIBE read as a stream and ended by a CancelRequest,
// SQLSTATE codes, a read key refused an INSERT; the same keys over HTTP
// (401 without, 403 beyond the scope). Ends with the line
// `N passed, N failed`; exit status 0 when none failed.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const sluice = resolve(option('--sluice', join(here, '../../build/release/sluice')));
const hosts = Number(option('--hosts', '1'));
const suffix = hosts > 1 ? `-hosts${hosts}` : '';
const log = msg => console.log(`[pgwire${suffix}] ${msg}`);

let pg;
try {
  pg = (await import('pg')).default;
} catch (e) {
  console.error(`FAILED: pg is not installed: run (cd tests/pgwire && npm ci) (scripts/test does) [${e.message}]`);
  process.exit(1);
}

let passed = 0, failed = 0;
function check(what, ok, detail = '') {
  if (ok) {
    passed++;
    log(`ok   ${what}`);
  } else {
    failed++;
    log(`FAIL ${what}${detail ? ': ' + detail : ''}`);
  }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

// ---- the pipeline
const work = mkdtempSync(join(tmpdir(), 'sluice-pgwire-'));
writeFileSync(join(work, 'program.sql'), `
CREATE TABLE person (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(20), age INT,
                     score DECIMAL(10,2), born DATE) WITH ('materialized' = 'true');
CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, person BIGINT, amount DECIMAL(10,2));
CREATE MATERIALIZED VIEW adults AS SELECT id, name, age FROM person WHERE age >= 18;
CREATE MATERIALIZED VIEW spend AS
  SELECT p.name, SUM(o.amount) AS total, COUNT(*) AS n
  FROM orders o JOIN person p ON o.person = p.id GROUP BY p.name;
CREATE TABLE tickets (id SERIAL PRIMARY KEY, what TEXT) WITH ('materialized' = 'true');
CREATE TABLE stock (sku VARCHAR PRIMARY KEY, qty INT CHECK (qty >= 0)) WITH ('materialized' = 'true');
CREATE SEQUENCE s START 7;
`);
const readKey = 'read-0123456789abcdef', writeKey = 'write-0123456789abcdef';
writeFileSync(join(work, 'keys'), `# scopes\n${readKey} read\n${writeKey} write\n`);
const ssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
                                  '-nodes', '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem'),
                                  '-days', '2', '-subj', '/CN=localhost']);
if (ssl.status !== 0) {
  console.error(`FAILED: openssl could not make a certificate: ${ssl.stderr}`);
  process.exit(1);
}
writeFileSync(join(work, 'people.csv'), 'id,name,age,score,born\n1,ann,30,12.50,1994-05-01\n' +
              '2,"bob, jr",12,3,\n3,,45,,2000-02-29\n');
writeFileSync(join(work, 'stock.csv'), 'a,1\nb,-2\n');

const sluiceArgs = ['run', join(work, 'program.sql'), '--port', '0', '--pg-port', '0',
                    '--api-key-file', join(work, 'keys'), '--tls-cert', join(work, 'cert.pem'),
                    '--tls-key', join(work, 'key.pem'), '--workers', '2'];
if (hosts > 1) sluiceArgs.push('--hosts', String(hosts));
const proc = spawn(sluice, sluiceArgs, {cwd: work, stdio: ['ignore', 'ignore', 'pipe']});
let stderr = '';
proc.stderr.on('data', d => { stderr += d; });
let port = 0;
for (let i = 0; i < 600 && !port; i++) {
  const m = /PostgreSQL clients: psql -h \S+ -p (\d+)/.exec(stderr);
  if (m) port = Number(m[1]);
  else await sleep(50);
}
if (!port) {
  console.error(`FAILED: sluice did not start its PostgreSQL port:\n${stderr}`);
  proc.kill('SIGKILL');
  process.exit(1);
}
log(`pipeline up, PostgreSQL protocol on port ${port}`);

function psql(sql, {password = writeKey, sslmode = 'require', file = null} = {}) {
  const a = ['-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'tester', '-d', 'sluice'];
  if (file) a.push('-f', file); else a.push('-c', sql);
  const r = spawnSync('psql', a, {cwd: work, encoding: 'utf8',
                                  env: {...process.env, PGPASSWORD: password, PGSSLMODE: sslmode,
                                        PGCONNECT_TIMEOUT: '10'}});
  return {status: r.status, out: r.stdout || '', err: r.stderr || ''};
}

const cfg = (password = writeKey) => ({host: '127.0.0.1', port, user: 'tester', database: 'sluice', password,
                                       ssl: {rejectUnauthorized: false}});

try {
  // ---- psql
  let r = psql('SELECT 1 + 1 AS two');
  check('psql runs a query', r.status === 0 && /two\s*\n-+\n\s*2\n\(1 row\)/.test(r.out), r.err || r.out);
  r = psql('\\copy person from people.csv csv header');
  check('psql \\copy in from a CSV file', r.status === 0 && /COPY 3/.test(r.out), r.err || r.out);
  r = psql('SELECT id, name, age, score, born FROM person ORDER BY id');
  check('the rows psql copied in are there',
        r.status === 0 && /1 \| ann\s+\|\s+30 \| 12.50 \| 1994-05-01/.test(r.out) &&
        /2 \| bob, jr\s+\|\s+12 \|  3.00 \|/.test(r.out) && /\(3 rows\)/.test(r.out), r.err || r.out);
  r = psql("INSERT INTO stock VALUES ('x', -1)");
  check('an INSERT that breaks a CHECK constraint is refused, with its DETAIL',
        r.status !== 0 &&
        /ERROR:\s+new row for relation "stock" violates check constraint "stock_qty_check"\n/.test(r.err) &&
        /DETAIL:\s+Failing row contains \(x, -1\)\./.test(r.err), r.err || r.out);
  r = psql('\\copy stock from stock.csv csv');
  check('a \\copy with a row that breaks a CHECK constraint fails',
        r.status !== 0 && /violates check constraint "stock_qty_check"/.test(r.err), r.err || r.out);
  r = psql('SELECT count(*) AS n FROM stock');
  check('... and copies none of its rows', r.status === 0 && /n\s*\n-+\n\s*0\n/.test(r.out), r.err || r.out);
  r = psql('\\dt');
  check('psql \\dt lists the tables', r.status === 0 && /person/.test(r.out) && /orders/.test(r.out) &&
        !/adults/.test(r.out), r.err || r.out);
  r = psql('\\d person');
  check('psql \\d person shows columns, types, not null and the key',
        r.status === 0 && /id\s+\|\s*bigint\s+\|\s+\|\s*not null/.test(r.out) &&
        /name\s+\|\s*character varying\(20\)/.test(r.out) && /numeric\(10,2\)/.test(r.out) &&
        /PRIMARY KEY/.test(r.out), r.err || r.out);
  r = psql('\\dv');
  check('psql \\dv lists the views', r.status === 0 && /adults/.test(r.out) && /spend/.test(r.out) &&
        !/orders/.test(r.out), r.err || r.out);
  r = psql('\\d adults');
  check('psql \\d of a view shows its columns', r.status === 0 && /View "public.adults"/.test(r.out) &&
        /age\s+\|\s*integer/.test(r.out), r.err || r.out);
  r = psql('SELEC name FROM person');
  check('psql shows a syntax error with its line and caret',
        r.status !== 0 && /ERROR:\s+syntax error at or near "SELEC"/.test(r.err) &&
        /LINE 1: SELEC name FROM person\n\s+\^/.test(r.err), r.err);
  r = psql('SELECT nme FROM person');
  check('an unknown column is an error at its place',
        r.status !== 0 && /column "nme" does not exist/.test(r.err) && /LINE 1: SELECT nme/.test(r.err), r.err);
  r = psql('SELECT 1', {password: 'not-a-key-0123456789'});
  check('a wrong password is refused', r.status !== 0 && /password authentication failed/.test(r.err), r.err);
  r = psql('\\conninfo');
  check('psql connects over SSL', r.status === 0 && /SSL connection/.test(r.out), r.err || r.out);
  r = psql("SET IntervalStyle TO iso_8601; SELECT interval '1 day 02:03:04' AS i; " +
           "SET IntervalStyle TO postgres_verbose; SELECT interval '-1 day -02:03:04' AS i; " +
           "SHOW IntervalStyle; SET bytea_output = escape; SELECT '\\x41ff'::bytea AS b");
  check('psql: SET IntervalStyle and bytea_output change how values print',
        r.status === 0 && /P1DT2H3M4S/.test(r.out) && /@ 1 day 2 hours 3 mins 4 secs ago/.test(r.out) &&
        /postgres_verbose/.test(r.out) && /A\\377/.test(r.out), r.err || r.out);
  r = psql('SET IntervalStyle TO iso8601');
  check('a bad IntervalStyle is refused with the values it takes',
        r.status !== 0 && /invalid value for parameter "IntervalStyle": "iso8601"/.test(r.err) &&
        /iso_8601/.test(r.err), r.err);

  r = psql("SET datestyle TO dmy; SHOW DateStyle; SELECT date '1/8/1999' AS d1; " +
           "SET DateStyle = 'ISO, YMD'; SELECT date '01/02/03' AS d2; RESET datestyle; SHOW DateStyle; " +
           "SELECT date '1/8/1999' AS d3; SET extra_float_digits = 0; SELECT 0.1::float8 + 0.2::float8 AS f");
  check('psql: SET DateStyle changes how dates read (and SHOW says so); extra_float_digits how floats print',
        r.status === 0 && /ISO, DMY/.test(r.out) && /1999-08-01/.test(r.out) && /2001-02-03/.test(r.out) &&
        /ISO, MDY/.test(r.out) && /1999-01-08/.test(r.out) && /\b0\.3\b/.test(r.out) &&
        !/0\.30000000000000004/.test(r.out), r.err || r.out);
  r = psql('SET DateStyle TO SQL, DMY');
  check('a DateStyle that prints dates other than as ISO is refused',
        r.status !== 0 && /DateStyle "sql, dmy" is not supported/i.test(r.err), r.err);
  r = psql('SET DateStyle TO xyz');
  check('an unknown DateStyle is refused',
        r.status !== 0 && /invalid value for parameter "DateStyle": "xyz"/.test(r.err), r.err);

  // ---- the same keys over HTTP
  const api = /listening on (https:\/\/\S+)/.exec(stderr)[1];
  const http = async (method, path, key, body) => {
    const res = await fetch(api + path, {method, body,
                                         headers: key ? {Authorization: `Bearer ${key}`} : {}});
    return {status: res.status, body: await res.json().catch(() => ({}))};
  };
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';  // the test's own certificate
  let h = await http('GET', '/status');
  check('HTTP without a key is 401', h.status === 401 && h.body.error_code === 'Unauthorized', JSON.stringify(h));
  h = await http('GET', '/status', 'not-a-key-0123456789');
  check('HTTP with an unknown key is 401', h.status === 401, JSON.stringify(h));
  h = await http('GET', '/status', readKey);
  check('HTTP with a read key reads', h.status === 200 && h.body.state === 'Running', JSON.stringify(h));
  h = await http('POST', '/pause', readKey);
  check('HTTP with a read key may not pause', h.status === 403 && h.body.details.needed === 'write',
        JSON.stringify(h));
  h = await http('POST', '/ingress/orders', readKey, '{"insert": {"id": 999, "person": 1, "amount": 1}}');
  check('HTTP with a read key may not ingest', h.status === 403, JSON.stringify(h));
  const page = await fetch(api + '/');
  check('the console page needs no key', page.status === 200);

  // ---- node-postgres
  const c = new pg.Client(cfg());
  await c.connect();
  let q = await c.query('SELECT id, name, score, born FROM person WHERE age > $1 ORDER BY id', [20]);
  check('pg: a parameterized query',
        q.rows.length === 2 && q.rows[0].name === 'ann' && q.rows[0].score === '12.50' &&
        q.rows[1].name === null && q.fields.map(f => f.dataTypeID).join() === '20,1043,1700,1082',
        JSON.stringify(q.rows));
  const named = {name: 'by_id', text: 'SELECT name FROM person WHERE id = $1'};
  const a = await c.query({...named, values: [1]});
  const b = await c.query({...named, values: [2]});
  check('pg: a prepared statement reused', a.rows[0]?.name === 'ann' && b.rows[0]?.name === 'bob, jr',
        JSON.stringify([a.rows, b.rows]));

  // Sequences: a SERIAL column's values, and currval() of this connection
  // (prepared statements, parameters: the extended protocol).
  q = await c.query("INSERT INTO tickets (what) VALUES ($1), ($2) RETURNING id", ['a', 'b']);
  const cur = await c.query("SELECT currval('tickets_id_seq') AS c, nextval('s') AS n");
  const again = await c.query("SELECT lastval() AS l");
  check('pg: SERIAL values and this session\'s currval()',
        q.rows.map(x => x.id).sort().join() === '1,2' && cur.rows[0]?.c === '2' && cur.rows[0]?.n === '7' &&
        again.rows[0]?.l === '7', JSON.stringify([q.rows, cur.rows, again.rows]));
  r = psql("SELECT currval('s')");
  check('psql: currval() of another session is not defined',
        r.status !== 0 && /currval of sequence "s" is not yet defined in this session/.test(r.err), r.err);
  r = psql('\\ds');
  check('psql \\ds lists the sequences', r.status === 0 && /tickets_id_seq/.test(r.out) && /\bs\b/.test(r.out),
        r.err || r.out);

  // A follower of the view sees both tables' inserts in one step.
  const sub = new pg.Client(cfg(readKey));
  await sub.connect();
  const rows = [];
  const stream = new pg.Query('SUBSCRIBE TO spend');
  stream.on('row', row => rows.push(row));
  const ended = new Promise(res => {
    stream.on('error', e => res(e));
    stream.on('end', () => res(null));
  });
  sub.query(stream);
  await sleep(300);
  await c.query('BEGIN');
  await c.query('INSERT INTO person (id, name, age) VALUES ($1, $2, $3)', [10, 'dee', 50]);
  await c.query('INSERT INTO orders VALUES ($1, $2, $3), ($4, $5, $6)', [100, 10, '5.25', 101, 10, '4.75']);
  q = await c.query('SELECT count(*) AS n FROM person WHERE id = 10');
  check('pg: inside a transaction block, its inserts are not yet visible', q.rows[0].n === '0', JSON.stringify(q.rows));
  await c.query('COMMIT');
  q = await c.query('SELECT name, total, n FROM spend');
  check('pg: a committed transaction of inserts into two tables',
        q.rows.length === 1 && q.rows[0].name === 'dee' && q.rows[0].total === '10.00' && q.rows[0].n === '2',
        JSON.stringify(q.rows));
  for (let i = 0; i < 100 && rows.length === 0; i++) await sleep(50);
  check('pg: SUBSCRIBE streams the change, with its step and weight',
        rows.length === 1 && rows[0].name === 'dee' && rows[0].weight === '1' && Number(rows[0].step) > 0,
        JSON.stringify(rows));
  await c.query('DELETE FROM orders WHERE id = $1', [101]);
  for (let i = 0; i < 100 && rows.length < 3; i++) await sleep(50);
  check('pg: SUBSCRIBE streams an update as a delete and an insert',
        rows.length === 3 && rows.some(x => x.weight === '-1' && x.total === '10.00') &&
        rows.some(x => x.weight === '1' && x.total === '5.25'), JSON.stringify(rows));
  // CancelRequest on a connection of its own, with the session's key.
  await new Promise(res => {
    const s = net.connect(port, '127.0.0.1', () => {
      const m = Buffer.alloc(16);
      m.writeInt32BE(16, 0);
      m.writeInt32BE(80877102, 4);
      m.writeInt32BE(sub.processID, 8);
      m.writeInt32BE(sub.secretKey, 12);
      s.end(m);
    });
    s.on('close', res);
  });
  const e = await Promise.race([ended, sleep(5000).then(() => 'timeout')]);
  check('pg: a CancelRequest ends the SUBSCRIBE', e && e.code === '57014', String(e && e.message));
  q = await sub.query('SELECT count(*) AS n FROM adults');
  check('pg: the session goes on after the cancel', q.rows[0].n === '3', JSON.stringify(q.rows));
  const denied = await sub.query('INSERT INTO orders VALUES (1, 1, 1)').catch(x => x);
  check('pg: a read key may not INSERT', denied.code === '42501', denied.message);
  await sub.end();

  // UPDATE of a materialized table: in place, and a changed key.
  q = await c.query('UPDATE person SET age = age + $1, name = upper(name) WHERE id IN (1, 2)', [1]);
  check('pg: UPDATE says how many rows', q.command === 'UPDATE' && q.rowCount === 2, JSON.stringify(q));
  q = await c.query('SELECT id, name, age FROM person WHERE id IN (1, 2) ORDER BY id');
  check('pg: UPDATE changed the rows',
        q.rows.length === 2 && q.rows[0].name === 'ANN' && q.rows[0].age === 31 && q.rows[1].age === 13,
        JSON.stringify(q.rows));
  await c.query('UPDATE person SET id = 20 WHERE id = 2');
  q = await c.query('SELECT id FROM person WHERE id IN (2, 20)');
  check('pg: UPDATE of the key moves the row', q.rows.length === 1 && q.rows[0].id === '20',
        JSON.stringify(q.rows));
  const notMaterialized = await c.query('UPDATE orders SET amount = 0').catch(x => x);
  check('pg: UPDATE of a table that is not materialized says why',
        notMaterialized.code === '0A000' && /materialized/.test(notMaterialized.message), notMaterialized.message);

  // RETURNING, ON CONFLICT and WITH queries that change data, prepared
  // with parameters (Parse, Bind, Describe, Execute).
  q = await c.query('INSERT INTO person (id, name, age) VALUES ($1, $2, $3), (31, \'eve\', 40) ' +
                    'RETURNING id, upper(name) AS shout, age + 1 AS next', [30, 'dan', 20]);
  check('pg: INSERT ... RETURNING answers the rows it added',
        q.command === 'INSERT' && q.rowCount === 2 && q.fields.map(f => f.name).join() === 'id,shout,next' &&
        JSON.stringify(q.rows.map(r => [r.id, r.shout, r.next]).sort()) === '[["30","DAN",21],["31","EVE",41]]',
        JSON.stringify(q));
  q = await c.query('INSERT INTO person (id, name, age) VALUES (30, \'dan2\', 5), (32, \'fay\', 9) ' +
                    'ON CONFLICT (id) DO UPDATE SET age = person.age + excluded.age RETURNING id, name, age');
  check('pg: INSERT ... ON CONFLICT DO UPDATE changes the row of the key',
        q.rowCount === 2 && JSON.stringify(q.rows.map(r => [r.id, r.name, r.age]).sort()) ===
          '[["30","dan",25],["32","fay",9]]', JSON.stringify(q.rows));
  q = await c.query('WITH gone AS (DELETE FROM person WHERE id >= $1 RETURNING id, age) ' +
                    'SELECT count(*) AS n, sum(age) AS ages FROM gone', [30]);
  check('pg: a WITH query that deletes answers the rows it deleted',
        q.command === 'SELECT' && q.rows[0].n === '3' && q.rows[0].ages === '74', JSON.stringify(q.rows));
  q = await c.query('SELECT count(*) AS n FROM person WHERE id >= 30');
  check('pg: ... and they are gone', q.rows[0].n === '0', JSON.stringify(q.rows));
  const badReturning = await c.query('DELETE FROM person WHERE id = $1 RETURNING nme', [1]).catch(x => x);
  check('pg: a bad RETURNING list is an error that points at it, and deletes nothing',
        badReturning.code === '42703' && badReturning.position === '45', `${badReturning.code} ${badReturning.message} ${badReturning.position}`);

  const codes = {};
  for (const [sql, code] of [['SELECT * FROM nosuch', '42P01'], ['SELECT nope FROM person', '42703'],
                             ['SELEC 1', '42601'], ['SELECT 1/0', '22012'],
                             ['TRUNCATE person', '0A000']]) {
    const x = await c.query(sql).catch(err => err);
    codes[sql] = x.code;
    check(`pg: ${sql} is SQLSTATE ${code}`, x.code === code, `${x.code} ${x.message}`);
  }
  const bad = await c.query("INSERT INTO person (id, age) VALUES (50, 'old')").catch(x => x);
  check('pg: a bad value is a data exception', bad.code === '22P02' && /integer/.test(bad.message),
        `${bad.code} ${bad.message}`);
  q = await c.query('SELECT count(*) AS n FROM person');
  check('pg: a failed INSERT added nothing', q.rows[0].n === '4', JSON.stringify(q.rows));
  await c.end();
} catch (e) {
  check('no unexpected exception', false, e.stack);
} finally {
  proc.kill('SIGTERM');
  await new Promise(res => { proc.on('exit', res); setTimeout(res, 10000); });
  rmSync(work, {recursive: true, force: true});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
