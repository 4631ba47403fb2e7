-- Subqueries in a grouped select list and HAVING, GROUPING() over a plain
-- GROUP BY, and a table's columns grouped through its primary key.
CREATE TABLE t (a INT, b INT, c INT);
CREATE TABLE k (id INT PRIMARY KEY, name TEXT, w INT);
INSERT INTO t VALUES (1, 10, 1), (1, 20, 2), (2, 30, 3), (2, NULL, 4), (3, 5, 5);
INSERT INTO k VALUES (1, 'one', 7), (2, 'two', 8), (3, 'three', 9);
SELECT a, sum(b), (SELECT count(*) FROM t) AS n FROM t GROUP BY a;
SELECT a, (SELECT max(x.b) FROM t x WHERE x.a = y.a) AS m, count(*) FROM t y GROUP BY a;
SELECT a FROM t y GROUP BY a HAVING EXISTS (SELECT 1 FROM t z WHERE sum(y.b) = z.b);
SELECT a, sum(c) FROM t y GROUP BY a HAVING sum(c) > (SELECT min(c) FROM t WHERE t.a = y.a) ORDER BY a;
SELECT a, float8(count(*)) / (SELECT count(*) FROM t) AS share FROM t GROUP BY 1;
SELECT a, grouping(a), count(*) FROM t GROUP BY a;
SELECT k.id, k.name, k.w + 1, sum(t.b) FROM k JOIN t ON t.a = k.id GROUP BY k.id;
SELECT id, name FROM k GROUP BY id HAVING w > 7;
INSERT INTO t VALUES (3, 50, 6), (4, 1, 1);
INSERT INTO k VALUES (4, 'four', 10);
DELETE FROM t WHERE b = 30;
UPDATE k SET name = 'uno' WHERE id = 1;
UPDATE t SET b = 21 WHERE b = 20;
-- A set-returning function in a grouped select list runs once per group,
-- after HAVING; a subquery in an aggregate's arguments or FILTER reads the
-- rows before they are grouped.
SELECT a, generate_series(1, a) AS g, count(*) FROM t GROUP BY a;
SELECT a, generate_series(1, 2) * sum(c) AS g FROM t GROUP BY a HAVING count(*) > 1;
SELECT * FROM k WHERE (id, id) IN (SELECT a, generate_series(1, 4) / 2 FROM t GROUP BY a);
SELECT a, sum(b) FILTER (WHERE b IN (SELECT w * 3 FROM k)), count(*) FROM t GROUP BY a;
SELECT sum(c) FILTER (WHERE a IN (SELECT id FROM k WHERE name LIKE 't%')) FROM t;
SELECT a, max((SELECT k.w FROM k WHERE k.id = t.c)) FROM t GROUP BY a;
SELECT max((SELECT k.w FROM k WHERE k.id = t.c)) + count(*) FROM t;
SELECT a, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM k WHERE k.id = t.c)), (SELECT count(*) FROM k) FROM t GROUP BY a HAVING sum(c) > (SELECT min(w) FROM k) - 6;
-- An aggregate whose subquery reads only the enclosing query's rows is
-- that query's (PostgreSQL's agglevelsup), not the inner one's.
SELECT (SELECT max((SELECT k.w FROM k WHERE k.id = o.c))) FROM t o;
SELECT (SELECT max((SELECT k.w FROM k WHERE k.id = o.c) + i.w) FROM k i) FROM t o;
SELECT (SELECT max((SELECT 1))) FROM t o;
