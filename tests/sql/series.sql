-- generate_series() and unnest() in FROM with constant arguments, VALUES of
-- constant expressions, and UNION of an untyped column.
SELECT * FROM generate_series(1, 5);
SELECT g FROM generate_series(10, 1, -3) AS g;
SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS t(x, n);
SELECT * FROM generate_series('2020-01-31'::timestamp, '2020-06-01'::timestamp, interval '1 month');
SELECT * FROM generate_series(0.5, 2.0, 0.5);
SELECT * FROM generate_series(5, 1);
SELECT * FROM unnest(ARRAY[1,2,NULL]) WITH ORDINALITY;
SELECT * FROM unnest(ARRAY['a','b']) AS u(x);
-- unnest of several arrays: side by side, the shorter ones padded with NULLs
SELECT * FROM unnest(ARRAY[1, 2, 3], ARRAY['a', 'b']) u(i, v);
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b', NULL], ARRAY[true]);
SELECT * FROM unnest(ARRAY[1], NULL::int[]) WITH ORDINALITY u;
SELECT v || 'a', count(*) FROM unnest(ARRAY[1, 1], ARRAY['a', 'b']) u(i, v) GROUP BY ROLLUP(i, v || 'a');
SELECT x, y FROM generate_series(1,3) x, generate_series(1,2) y WHERE x > y;
SELECT * FROM (VALUES (1+1, 'a'), (3, 'b' || 'c')) AS v(a, b);
SELECT 1 UNION SELECT NULL;
SELECT NULL UNION ALL SELECT 2.5;
SELECT 'x' UNION SELECT 'y';
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1), (2), (5);
INSERT INTO t VALUES (3);
DELETE FROM t WHERE a = 2;
SELECT a, g FROM t JOIN generate_series(1, 3) g ON a = g;
SELECT a, count(*) FROM t, generate_series(1, a) GROUP BY a;
SELECT a, g FROM t, LATERAL generate_series(a, 4, 2) g WHERE g > 1;
SELECT t.a, u.x FROM t, unnest(ARRAY[t.a, t.a * 10, NULL]) AS u(x);
SELECT u.*, t.a FROM t, unnest(ARRAY[1, 1, 2], ARRAY['a', 'b']) WITH ORDINALITY u(i, v, n) WHERE u.i = t.a;

-- sluice: error step size cannot equal zero
SELECT * FROM generate_series(1, 5, 0);
SELECT * FROM string_to_table('a,b,,c', ',');
SELECT * FROM string_to_table('a,b,,c', ',', '') WITH ORDINALITY AS t(x, n);
SELECT * FROM string_to_table('abc', NULL);
SELECT x FROM regexp_split_to_table('the quick  brown', '\s+') AS x;

-- Set-returning functions in a select list: a row per value, the other items repeated.
CREATE TABLE arr (k INT, a INT[], s TEXT);
INSERT INTO arr VALUES (1, ARRAY[1, 2], 'a1b22'), (2, ARRAY[3], 'x'), (3, '{}', NULL), (4, NULL, 'c3');
SELECT k, unnest(a) FROM arr;
SELECT *, unnest(a) AS u FROM arr;
SELECT k, generate_series(1, k) AS g, k * 10 FROM arr WHERE k < 4;
SELECT k, unnest(a), unnest(a) FROM arr;
SELECT k, string_to_table(s, 'b') FROM arr;
SELECT DISTINCT unnest(a) % 2 AS parity FROM arr;
SELECT generate_series(1, 3), 'x' AS c;
SELECT unnest(ARRAY['a', NULL]) AS u ORDER BY 1;
SELECT u FROM (SELECT k, unnest(a) AS u FROM arr) s WHERE u > 1;
SELECT unnest(a), generate_series(1, 2) FROM arr;
-- In a grouped select list: once per group.
SELECT k, unnest(array_agg(k)) FROM arr GROUP BY k;
INSERT INTO arr VALUES (5, ARRAY[7, 8, 9], 'zz9');
UPDATE arr SET a = ARRAY[4, 4] WHERE k = 2;
DELETE FROM arr WHERE k = 1;

-- generate_series over columns of NUMERIC and TIMESTAMP (by an INTERVAL),
-- maintained as the columns change.
CREATE TABLE spans (id int, lo numeric, hi numeric, st numeric, t0 timestamp, t1 timestamp);
INSERT INTO spans VALUES (1, 1, 3, 1, '2024-01-30', '2024-03-01'), (2, 0.5, 2, 0.75, '2024-02-28 12:00', '2024-03-02'), (3, 5, 1, -2.5, NULL, '2024-01-01');
SELECT id, g FROM spans, generate_series(lo, hi) g;
SELECT id, g FROM spans, generate_series(lo, hi, st) g;
SELECT id, g FROM spans, generate_series(1, 5, st) g;
SELECT id, g FROM spans, generate_series(t0, t1, interval '1 month') g;
SELECT id, g FROM spans, generate_series(t0, t1, '1 day') AS g WHERE g >= '2024-02-28';
SELECT * FROM generate_series(1::numeric, 3::numeric) i, generate_series(i, 3) j;
SELECT * FROM generate_series(1::numeric, 3::numeric) i, generate_series(1, i) j;
SELECT * FROM generate_series(1::numeric, 3::numeric) i, generate_series(1, 5, i) j;
UPDATE spans SET hi = 4 WHERE id = 1;
DELETE FROM spans WHERE id = 2;
SELECT id, g FROM spans, generate_series(lo, hi, st) g;
-- sluice: error step size cannot equal zero
SELECT id, g FROM spans, generate_series(lo, hi, 0.0) g;

-- GROUP BY a set-returning function's call: its rows are formed before the
-- groups (PostgreSQL's ProjectSet under the aggregate).
CREATE TABLE ranges (k INT, n INT, w INT);
INSERT INTO ranges VALUES (1, 1, 10), (2, 3, 20), (3, 2, 30), (4, NULL, 40);
SELECT generate_series(1, n) AS g, count(*), sum(w) FROM ranges GROUP BY 1;
SELECT generate_series(1, n) AS g, count(*) FROM ranges GROUP BY ROLLUP(g);
SELECT generate_series(1, n) + 1 AS g1, max(k) FROM ranges WHERE w > 10 GROUP BY generate_series(1, n) HAVING count(*) > 1;
SELECT * FROM (SELECT generate_series(1, n) AS g, count(*) AS c FROM ranges GROUP BY 1) s WHERE s.g = 1;
SELECT r.k % 2 AS parity, unnest(ARRAY[r.n, r.w]) AS x, count(*) FROM ranges r GROUP BY parity, x;
UPDATE ranges SET n = 4 WHERE k = 1;
DELETE FROM ranges WHERE k = 3;
INSERT INTO ranges VALUES (5, 2, 50);
SELECT generate_series(1, n) AS g, count(*), sum(w) FROM ranges GROUP BY 1;
-- WITH ORDINALITY over columns (a LATERAL call): each value's place in its
-- row's series, after the function's columns (after a composite's fields).
CREATE TYPE pair AS (k TEXT, v INT);
CREATE TABLE arrs (id INT PRIMARY KEY, a INT[], p pair[], j JSONB);
INSERT INTO arrs VALUES (1, ARRAY[10, 20, 30], ARRAY[ROW('a', 1)::pair, ROW('b', 2)::pair], '[5, 6]'), (2, '{}', NULL, '[]'), (3, ARRAY[7], ARRAY[NULL::pair], '[[1], 2]');
SELECT arrs.id, u.x, u.n FROM arrs, unnest(arrs.a) WITH ORDINALITY AS u(x, n);
SELECT arrs.id, u.* FROM arrs, unnest(arrs.p) WITH ORDINALITY AS u;
SELECT arrs.id, e.* FROM arrs, jsonb_array_elements(arrs.j) WITH ORDINALITY AS e(v, i);
SELECT arrs.id, g.* FROM arrs, generate_series(1, arrs.id) WITH ORDINALITY AS g;
SELECT arrs.id, n, x FROM arrs CROSS JOIN LATERAL unnest(arrs.a) WITH ORDINALITY AS u(x, n) WHERE n > 1;
UPDATE arrs SET a = ARRAY[1, 2] WHERE id = 1;
DELETE FROM arrs WHERE id = 3;
SELECT arrs.id, u.x, u.n FROM arrs, unnest(arrs.a) WITH ORDINALITY AS u(x, n);
-- sluice: error has 2 columns available but 3 columns specified
SELECT * FROM arrs, unnest(arrs.a) WITH ORDINALITY AS u(x, n, z);
