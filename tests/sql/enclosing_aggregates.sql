-- An aggregate in a subquery that reads only the enclosing query's columns
-- (in its arguments, FILTER, or subqueries of its own) is the enclosing
-- query's, which it makes an aggregate query (PostgreSQL's agglevelsup).
CREATE TABLE t (a INT, c INT);
CREATE TABLE k (id INT, w INT);
CREATE TABLE bool_test (b1 BOOL, n INT);
INSERT INTO t VALUES (1, 1), (1, 2), (2, 3), (3, NULL);
INSERT INTO k VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO bool_test VALUES (true, 1), (false, 2), (NULL, 3);
SELECT (SELECT max((SELECT k.w FROM k WHERE k.id = o.c))) FROM t o;
SELECT (SELECT max((SELECT k.w FROM k WHERE k.id = o.c)) FILTER (WHERE o.a < 3)) FROM t o;
SELECT (SELECT count(*) FILTER (WHERE outer_c <> 0) FROM (VALUES (1)) t0(inner_c)) FROM (VALUES (2), (3)) t1(outer_c);
SELECT (SELECT max(0) FILTER (WHERE b1)) FROM bool_test;
SELECT (SELECT sum(n) + count(*)) AS s FROM bool_test;
SELECT a, (SELECT max(o.c) + min(k.w) FROM k) AS m FROM t o GROUP BY a;
SELECT (SELECT max((SELECT k.w FROM k WHERE k.id = o.c) + i.w) FROM k i) FROM t o;
SELECT (SELECT max((SELECT 1))) FROM t o;
INSERT INTO t VALUES (2, 1), (4, 2);
DELETE FROM t WHERE c = 3;
UPDATE bool_test SET b1 = true WHERE n = 3;
