-- Grouping keys PostgreSQL resolves in more than one way: an output
-- column's name next to a subquery in the select list, a subquery that
-- reads the row (computed below the groups, in grouping sets too), and an
-- aggregate as the left operand of ANY/ALL/IN (the grouped query's own);
-- * over such a query.
CREATE TABLE t (id INT PRIMARY KEY, v INT);
CREATE TABLE u (f1 INT);
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5);
INSERT INTO u VALUES (1), (2), (NULL);
SELECT v + 1 AS s, (SELECT count(*) FROM t) AS n FROM t GROUP BY s;
SELECT (1 = any(array_agg(f1))) = any (select false) FROM u;
SELECT (SELECT t1.v FROM t t2 WHERE id = t1.id) AS s FROM t t1 GROUP BY 1;
SELECT (SELECT t1.v FROM t t2 WHERE id = t1.id) AS s, count(*) FROM t t1 GROUP BY s;
SELECT grouping((SELECT t1.v FROM t t2 WHERE id = t1.id)), (SELECT t1.v FROM t t2 WHERE id = t1.id) AS s
FROM t t1 GROUP BY GROUPING SETS (v, s)
ORDER BY CASE WHEN grouping((SELECT t1.v FROM t t2 WHERE id = t1.id)) = 0 THEN (SELECT t1.v FROM t t2 WHERE id = t1.id) ELSE NULL END NULLS FIRST;
SELECT (SELECT max(f1) FROM u WHERE f1 <= t.v) AS m, sum(v) FROM t GROUP BY (SELECT max(f1) FROM u WHERE f1 <= t.v);
SELECT v % 2 AS k, sum(id) > ALL (SELECT f1 FROM u) AS big, sum(id) IN (SELECT f1 * 3 FROM u) AS hit FROM t GROUP BY k;
SELECT v % 2 AS k, (SELECT count(*) FROM u) AS n FROM t GROUP BY k HAVING max(v) = ANY (SELECT f1 + 3 FROM u);
-- * shows the FROM item's columns, not the keys computed below the groups.
SELECT * FROM t GROUP BY id, v, (SELECT max(f1) FROM u WHERE f1 <= t.v);
SELECT DISTINCT t.* FROM t GROUP BY id, v, generate_series(1, 2);
SELECT *, count(*) FROM t GROUP BY id, v, generate_series(1, id % 3);
INSERT INTO t VALUES (6, 1), (7, 2);
DELETE FROM u WHERE f1 = 2;
UPDATE t SET v = 9 WHERE id = 1;
INSERT INTO u VALUES (5);
-- sluice: error A subquery in GROUP BY over several FROM items is not supported yet
SELECT (SELECT 1 FROM u WHERE f1 = t.v) AS s FROM t, u w GROUP BY 1;
