-- random(): a draw per row, kept by the view until the row leaves. The
-- drawn values differ from PostgreSQL's, so every query here has an answer
-- that does not depend on them; the incremental run (inserts and deletes
-- over several steps) fails them if a deletion retracts a value that was
-- never emitted.
CREATE TABLE t (id int, g int);
INSERT INTO t SELECT i, i % 3 FROM generate_series(1, 30) i;
INSERT INTO t VALUES (5, 2), (5, 2), (7, 1);
DELETE FROM t WHERE id BETWEEN 10 AND 14;
UPDATE t SET g = g + 10 WHERE id > 25;
DELETE FROM t WHERE id = 5;
INSERT INTO t VALUES (5, 2), (40, 0), (40, 0);
-- every value in [0, 1), one draw per copy of a row
SELECT count(*), count(*) FILTER (WHERE r >= 0 AND r < 1) FROM (SELECT id, random() AS r FROM t) s;
SELECT count(DISTINCT r) = count(*) FROM (SELECT random() AS r FROM t) s;
-- a row's draw stays with it: DISTINCT over (row, draw) keeps one row per copy
SELECT count(*) FROM (SELECT DISTINCT id, g, r FROM (SELECT id, g, random() AS r FROM t) a) b;
-- two calls draw independently; one column read twice is one value
SELECT count(*) FROM (SELECT random() AS a, random() AS b FROM t) s WHERE a = b;
SELECT count(*) FROM (SELECT x AS a, x AS b FROM (SELECT random() AS x FROM t) s) q WHERE a = b;
SELECT count(*) FROM (SELECT x, x + 1 AS y FROM (SELECT random() AS x FROM t) s) q WHERE y > x;
-- an uncorrelated scalar subquery is computed once, a correlated one per
-- value of the outer columns it reads (PostgreSQL: per row)
SELECT count(DISTINCT x) FROM (SELECT (SELECT random()) AS x FROM t) s;
SELECT count(DISTINCT x) = count(DISTINCT id) FROM (SELECT (SELECT random() WHERE t.id = t.id) AS x FROM t) s;
-- in WHERE, GROUP BY, aggregates, joins, window functions, LIMIT, LATERAL
SELECT count(*) FROM t WHERE random() < 1.0;
SELECT count(*) FROM t WHERE random() < 0.0;
SELECT g, count(*), count(random()), sum(CASE WHEN random() < 2 THEN 1 ELSE 0 END) FROM t GROUP BY g;
SELECT floor(random())::int AS z, count(*) FROM t GROUP BY 1;
SELECT count(*) FROM t a JOIN (SELECT id, random() AS r FROM t) b ON a.id = b.id WHERE b.r < 1;
SELECT min(rk), max(rk) = count(*) FROM (SELECT rank() OVER (ORDER BY random()) AS rk FROM t) s;
SELECT g, count(*) FROM (SELECT g, row_number() OVER (PARTITION BY g ORDER BY random()) AS n FROM t) s WHERE n <= 2 GROUP BY g;
SELECT count(*) FROM (SELECT id FROM t ORDER BY random() LIMIT 4) s;
SELECT count(*) FROM (SELECT id, sum(random()) OVER (ORDER BY id, g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM t) q WHERE s >= 0 AND s < 2;
SELECT count(*) FROM t, LATERAL (SELECT t.id AS i, random() AS r) l WHERE l.r < 1 AND l.i = t.id;
SELECT count(*) FROM t, LATERAL generate_series(1, 1 + floor(random())::int) s;
SELECT CASE WHEN random() < 0 THEN 1 END AS never FROM t WHERE id = 1;
SELECT count(*) FROM (VALUES (random()), (random())) v(r) WHERE r >= 0 AND r < 1;
SELECT count(*) FROM (SELECT random() AS r) s WHERE r < 1;
SELECT * FROM t WHERE id < 4 LIMIT (CASE WHEN random() < 0.5 THEN NULL::bigint END);
SELECT count(*) FROM t OFFSET (CASE WHEN random() < 0.5 THEN NULL::bigint END);
-- a CTE read twice is computed once
WITH q AS (SELECT random() AS x FROM generate_series(1, 5)) SELECT count(*) FROM (SELECT * FROM q UNION SELECT * FROM q) s;
-- in a join's condition: a draw per pair of rows
SELECT count(*) FROM t a LEFT JOIN t b ON a.id = b.id AND a.g < b.g + random();
SELECT count(*) FROM t a JOIN t b ON a.id = b.id AND random() < 2;
-- where no row keeps the draw
-- sluice: error random() inside WITH RECURSIVE is not supported yet
WITH RECURSIVE r(n, x) AS (SELECT 1, random() UNION ALL SELECT n + 1, random() FROM r WHERE n < 3) SELECT count(*) FROM r;
-- in INSERT and UPDATE: a value per row, once
CREATE TABLE u (id int, r float8);
INSERT INTO u VALUES (1, random()), (2, random());
INSERT INTO u SELECT i, random() FROM generate_series(3, 6) i;
UPDATE u SET r = random() WHERE id > 4;
SELECT count(*), count(DISTINCT r), bool_and(r >= 0 AND r < 1) FROM u;
SELECT count(*) FROM u a JOIN u b ON a.r = b.r;
