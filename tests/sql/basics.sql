-- Tables, the usual query forms, and changes over several steps: each
-- SELECT is a view checked against PostgreSQL over the data already there
-- and incrementally.
CREATE TABLE t (a INT, b TEXT, c DECIMAL(10,2), d DOUBLE PRECISION, e BOOLEAN);
INSERT INTO t VALUES (1, 'x', 1.50, 0.1, true), (2, 'y', 2.25, 1e10, false),
  (3, NULL, NULL, NULL, NULL), (4, 'x', -3.10, -2.5, true);
INSERT INTO t VALUES (5, 'z', 100.00, 3.0, false);
UPDATE t SET c = c + 1 WHERE a > 3;
DELETE FROM t WHERE a = 2;
INSERT INTO t VALUES (6, 'y', 0.01, 1e-5, NULL);

SELECT * FROM t;
SELECT a, b FROM t WHERE e;
SELECT b, count(*), sum(a), min(c), max(d) FROM t GROUP BY b;
SELECT a + 1, c * 2, d / 4, NOT e, b || '!' FROM t;
SELECT DISTINCT b FROM t;
SELECT count(*) FROM t WHERE b IS NULL;
SELECT a FROM t ORDER BY a DESC LIMIT 2;
SELECT x.a, y.a FROM t x JOIN t y ON x.b = y.b AND x.a < y.a;
SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE e) ORDER BY 1;
SELECT b, CASE WHEN a > 3 THEN 'big' ELSE 'small' END FROM t;
CREATE TABLE scratch (a INT);
-- sluice: error a WITH query that changes data (INSERT, UPDATE, DELETE) must be at the top level
CREATE VIEW changing AS WITH x AS (INSERT INTO scratch VALUES (1) RETURNING a) SELECT * FROM x;
-- sluice: error a WITH query that changes data (INSERT, UPDATE, DELETE) must be at the top level
SELECT * FROM (WITH x AS (INSERT INTO scratch VALUES (1) RETURNING a) SELECT * FROM x) s;
-- A view's column names given with it.
CREATE VIEW named_v (a, b, v) AS VALUES (1, 1, 10), (1, 2, 12), (2, 3, 15);
SELECT a, b, sum(v) FROM named_v GROUP BY a, b;
CREATE VIEW named_w (x) AS SELECT a + 1, b FROM named_v;
SELECT x, b FROM named_w;
-- sluice: error CREATE VIEW specifies more column names than columns
CREATE VIEW named_bad (a, b, c) AS SELECT 1, 2;
-- Booleans from any unambiguous prefix of PostgreSQL's words; booleq and
-- boolne by name.
SELECT 'of'::bool, 'tr'::bool, 'ye'::bool, 'n'::bool, 'on'::bool, 'FALS'::bool, booleq(true, 'f'), boolne(true, 'f');
-- sluice: error invalid input syntax for type boolean
SELECT 'o'::bool;
-- BETWEEN SYMMETRIC: either bound may be the lower one
CREATE TABLE sym (id INT PRIMARY KEY, x INT, a INT, b INT);
INSERT INTO sym VALUES (1, 5, 1, 10), (2, 5, 10, 1), (3, 5, 6, 9), (4, NULL, 1, 2), (5, 3, 3, NULL), (6, 7, NULL, 7);
SELECT id, x BETWEEN SYMMETRIC a AND b, x NOT BETWEEN SYMMETRIC a AND b, x BETWEEN a AND b FROM sym;
SELECT id FROM sym WHERE x BETWEEN SYMMETRIC b AND 4;
UPDATE sym SET a = 20 WHERE id = 1;
DELETE FROM sym WHERE id = 3;
SELECT id, x NOT BETWEEN SYMMETRIC a AND b FROM sym;
-- sluice: error A named argument (name => value) here is not supported yet
SELECT sum(x => 1) FROM sym;
