-- DISTINCT ON keeps the first row of each key in the ORDER BY's order;
-- FETCH FIRST n ROWS WITH TIES keeps the rows tied with the n-th.
CREATE TABLE t (g TEXT, n INT, v INT);
INSERT INTO t VALUES ('a', 1, 10), ('a', 2, 20), ('b', 5, 50), ('b', 5, 40), ('c', NULL, 1);
INSERT INTO t VALUES ('a', 0, 5), ('d', 3, 30), ('d', 3, 30);
DELETE FROM t WHERE v = 10;
UPDATE t SET n = 9 WHERE v = 50;
SELECT DISTINCT ON (g) g, n, v FROM t ORDER BY g, n DESC, v;
SELECT DISTINCT ON (g) g, v FROM t ORDER BY g, v;
SELECT DISTINCT ON (n % 2) n, v FROM t WHERE n IS NOT NULL ORDER BY n % 2, v DESC;
SELECT DISTINCT ON (g, n) g, n FROM t ORDER BY g, n;
SELECT n FROM t ORDER BY n FETCH FIRST 2 ROWS WITH TIES;
SELECT g, v FROM t ORDER BY v DESC FETCH FIRST 1 ROW WITH TIES;
SELECT n, v FROM t ORDER BY n NULLS FIRST FETCH FIRST 3 ROWS WITH TIES;
-- sluice: error SELECT DISTINCT ON expressions must match initial ORDER BY expressions
SELECT DISTINCT ON (g) g, n FROM t ORDER BY n;

-- LIMIT and OFFSET are constants: a column of the query is refused, and
-- one of an enclosing query is not supported yet.
CREATE TABLE lt (a int);
INSERT INTO lt VALUES (1), (2), (3);
-- sluice: error must not contain variables
SELECT a FROM lt LIMIT a;
-- sluice: error an OFFSET that reads the enclosing query's columns is not supported yet
SELECT a, (SELECT b.a FROM lt b ORDER BY b.a LIMIT 1 OFFSET lt.a - 1) AS x FROM lt;
