-- Row constructors, ROW(a, b) and (a, b): values of an anonymous record
-- type (printed as PostgreSQL's record_out does), and comparisons of two
-- rows field by field, with PostgreSQL's NULL rules.
CREATE TABLE pairs (a INT, b INT, t TEXT);
INSERT INTO pairs VALUES (1, 2, 'x'), (1, 3, 'y y'), (2, 1, NULL), (NULL, 1, 'z'), (2, NULL, ''),
  (3, 3, 'a,b'), (4, 0, 'q"(x)');
SELECT a, b, ROW(a, b) FROM pairs;
SELECT ROW(a, t), (b, t, 'lit'), ROW(a) FROM pairs;
SELECT a, b FROM pairs WHERE (a, b) = (1, 2);
SELECT a, b, (a, b) < (1, 3), (a, b) <= (2, 1), (a, b) > (1, 2), (a, b) >= (2, 1),
  (a, b) <> (1, 2), ROW(a, b) = ROW(b, a) FROM pairs;
SELECT a, b FROM pairs WHERE (a, b) IN ((1, 2), (2, 1), (4, 0));
SELECT a, b FROM pairs WHERE (a, b) NOT IN ((1, 2), (2, 1));
SELECT a, b FROM pairs WHERE (a, b + 1) IN ((1, 3));
SELECT ROW(a, b) FROM pairs UNION SELECT ROW(1, 5);
SELECT DISTINCT ROW(a % 2, b % 2) FROM pairs;
SELECT ROW(a, b), count(*) FROM pairs GROUP BY ROW(a, b);
SELECT ARRAY[ROW(a, t), ROW(b, 'w')] FROM pairs;
SELECT (a, b) < (a, b + 1), (t, a) > ('a', 1) FROM pairs;
-- sluice: error unequal number of entries in row expressions
SELECT (a, b) = (1, 2, 3) FROM pairs;
UPDATE pairs SET b = 2 WHERE a = 1;
DELETE FROM pairs WHERE a = 2;
INSERT INTO pairs VALUES (5, 5, NULL), (1, 2, 'again');
-- Whole-row references: t.* and a table's bare name as a record (NULL for
-- an outer join's missing side), ROW(t.*) spread into fields, USING (...) AS x.
CREATE TABLE j1 (i INT, j INT, t TEXT);
CREATE TABLE j2 (i INT, k INT);
INSERT INTO j1 VALUES (1, 4, 'one'), (2, 3, 'two'), (3, 2, 'three'), (NULL, 0, 'zero');
INSERT INTO j2 VALUES (1, -1), (2, 2), (5, -5), (NULL, 0), (2, 4);
SELECT * FROM j1 JOIN j2 USING (i) AS x WHERE x.i = 1;
SELECT x.*, j1.t FROM j1 JOIN j2 USING (i) AS x;
SELECT ROW(x.*) FROM j1 JOIN j2 USING (i) AS x WHERE j1.t = 'one';
SELECT j1.t, count(j2.*), count(j2) FROM j1 LEFT JOIN j2 ON j1.i = j2.i GROUP BY j1.t;
SELECT j1.*, row(j1.*), j1 IS NULL, j1 FROM j1;
SELECT ROW(j1.*, 5) FROM j1 WHERE j > 0;
SELECT count(j2.*), count(*) FROM j1 FULL JOIN j2 USING (i);
DELETE FROM j2 WHERE k = 2;
INSERT INTO j2 VALUES (3, 9);
UPDATE j1 SET t = 'uno' WHERE i = 1;
-- sluice: error missing FROM-clause entry for table "nope"
SELECT count(nope.*) FROM j1;
-- (x, y) [NOT] IN (subquery): the row comparison's NULLs, correlated too.
CREATE TABLE ro (id INT, f1 INT, f2 INT);
CREATE TABLE ri (a INT, b INT);
INSERT INTO ro VALUES (1, 1, 2), (2, 1, NULL), (3, NULL, 5), (4, 3, 4), (5, 7, 7), (6, NULL, NULL);
INSERT INTO ri VALUES (1, 2), (3, NULL), (NULL, 5);
SELECT id, (f1, f2) IN (SELECT a, b FROM ri), (f1, f2) NOT IN (SELECT a, b FROM ri) FROM ro;
SELECT id FROM ro WHERE (f1, f2) IN (SELECT a, b FROM ri);
SELECT id FROM ro WHERE (f1, f2) NOT IN (SELECT a, b FROM ri WHERE a IS NOT NULL AND b IS NOT NULL);
SELECT id, (f1, f2) IN (VALUES (1, 2), (7, 7)) FROM ro;
SELECT id, (ro.f1, ro.id) IN (SELECT a, b + 0 FROM ri WHERE ri.a < ro.id) FROM ro;
INSERT INTO ri VALUES (7, 7);
DELETE FROM ri WHERE a = 3;
UPDATE ro SET f2 = 2 WHERE id = 2;
-- sluice: error subquery has too many columns
SELECT (f1, f2) IN (SELECT a, b, a FROM ri) FROM ro;
-- The row's columns are the outer query's even where the subquery has
-- columns of the same names.
CREATE TABLE st (f1 INT, f2 INT, f3 FLOAT8);
INSERT INTO st VALUES (1, 2, 3), (2, 3, 4), (3, 4, 5), (1, 1, 1), (2, 2, 2), (3, 3, 3), (6, 7, 8), (8, 9, NULL);
SELECT f1, f2 FROM st WHERE (f1, f2) NOT IN (SELECT f2, CAST(f3 AS int4) FROM st WHERE f3 IS NOT NULL);
SELECT f1 FROM st WHERE (f1, f2) IN (SELECT f2, CAST(f3 AS int4) FROM st WHERE f3 IS NOT NULL);
SELECT f1 FROM st u WHERE (u.f1, u.f2) IN (SELECT f2, f1 + 1 FROM st WHERE f1 < u.f2);
DELETE FROM st WHERE f1 = 6;
-- sluice: error This comparison with a subquery that reads outer columns is not supported yet
SELECT f1 FROM st u WHERE (f1, f2) IN (SELECT f2, f1 + 1 FROM st WHERE f1 < u.f2);
-- x op ANY / ALL (subquery), with their NULLs.
SELECT id, f1 < ANY (SELECT a FROM ri), f1 >= ALL (SELECT a FROM ri), f1 = ALL (SELECT a FROM ri WHERE a = 7), f1 <> ALL (SELECT a FROM ri WHERE a IS NOT NULL), f2 > ALL (SELECT a FROM ri WHERE false), (f1, f2) <> ALL (SELECT a, b FROM ri) FROM ro;
SELECT id FROM ro WHERE f2 > ALL (SELECT b FROM ri WHERE b IS NOT NULL);
SELECT 1 = ALL (SELECT (SELECT 1)), 2 > ANY (VALUES (1), (NULL)), 2 < ALL (VALUES (3), (NULL));
INSERT INTO ri VALUES (0, 100);
UPDATE ro SET f1 = 0 WHERE id = 4;
-- sluice: error LIKE ANY (subquery) is not supported yet
SELECT 'a' LIKE ANY (SELECT 'b');

-- A subquery's whole row is a record even when its columns are NULL; on
-- the missing side of an outer join it is NULL. IS NULL of a row is true
-- when every field is NULL, IS NOT NULL when none is.
SELECT foo FROM (SELECT NULL) AS foo;
SELECT foo FROM (SELECT NULL::int AS x, NULL::text AS y) AS foo;
SELECT foo IS NULL AS n, foo IS NOT NULL AS nn FROM (SELECT NULL::int AS x) AS foo;
SELECT r IS NULL AS n, r IS NOT NULL AS nn
  FROM (VALUES (ROW(1, 2)), (ROW(NULL, 2)), (ROW(NULL, NULL))) AS v (r);
CREATE TABLE whole_l (a int);
CREATE TABLE whole_r (a int, b text);
INSERT INTO whole_l VALUES (1), (2), (3);
INSERT INTO whole_r VALUES (1, 'x'), (2, NULL), (NULL, NULL);
SELECT whole_l.a, whole_r, whole_r IS NULL AS n, count(whole_r.*) OVER () AS c
  FROM whole_l LEFT JOIN whole_r ON whole_l.a = whole_r.a;
SELECT whole_r, whole_r IS NULL AS n FROM whole_r;
-- ROW(x) on the left of = ANY (subquery) compares x with the subquery's
-- column, as a wider row compares each of its values.
CREATE TABLE row_any (k INT, a INT);
INSERT INTO row_any VALUES (1, 1), (2, 2), (3, NULL);
SELECT k, ROW(a) = ANY (SELECT 1 UNION SELECT 2), ROW(a) IN (SELECT a FROM row_any WHERE k > 1) FROM row_any;
SELECT row(row(row(1))) = any (select row(row(1)));
-- sluice: error operator does not exist: record = record
SELECT row(row(1)) = any (select row(row(1)));
UPDATE row_any SET a = 5 WHERE k = 2;
INSERT INTO row_any VALUES (4, 2);
SELECT k, ROW(a) = ANY (SELECT 1 UNION SELECT 2), ROW(a) IN (SELECT a FROM row_any WHERE k > 1) FROM row_any;

-- A row compared with a subquery of as many columns (PostgreSQL's ROWCOMPARE
-- sublink): the fields of its one row, NULLs where it has none.
CREATE TABLE rc (f1 INT, f2 INT, f3 INT);
INSERT INTO rc VALUES (1, 2, 3), (2, 3, 4), (1, NULL, 1), (3, 4, 5);
SELECT f1, ROW(1, 2) = (SELECT f1, f2) AS eq FROM rc;
SELECT ROW(1, 2) = (SELECT 3, 4) AS eq FROM rc;
SELECT f1, ROW(f1, f2) < (SELECT 2, 3) AS lt, ROW(f1, f2) >= (SELECT 2, 3) AS ge FROM rc;
SELECT f1, ROW(f1, 1) <> (SELECT s.f1, s.f3 FROM rc s WHERE s.f2 = rc.f2 + 1) AS ne FROM rc;
SELECT f1, ROW(f1, f3) = (SELECT f2 - 1, f3 FROM rc s WHERE s.f1 = 7) AS none FROM rc;
UPDATE rc SET f2 = 2 WHERE f2 IS NULL;
DELETE FROM rc WHERE f1 = 3;
INSERT INTO rc VALUES (7, 8, 9);
SELECT f1, f2, ROW(f1, f3) = (SELECT f2 - 1, f3 FROM rc s WHERE s.f1 = 7) AS seven FROM rc;
