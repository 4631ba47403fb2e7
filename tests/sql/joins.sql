-- JOIN ... USING and NATURAL JOIN merge their columns (SELECT * shows one
-- copy; each side's stays reachable qualified), inner and outer.
CREATE TABLE l (id INT, k TEXT, x INT);
CREATE TABLE r (id INT, k TEXT, y INT);
INSERT INTO l VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, 30), (4, 'd', 40);
INSERT INTO r VALUES (1, 'a', 100), (2, 'z', 200), (5, 'e', 500), (NULL, 'n', 0);
DELETE FROM l WHERE id = 4;
INSERT INTO l VALUES (5, 'e', 50);
SELECT * FROM l JOIN r USING (id);
SELECT * FROM l LEFT JOIN r USING (id);
SELECT * FROM l RIGHT JOIN r USING (id);
SELECT * FROM l FULL JOIN r USING (id);
SELECT * FROM l JOIN r USING (id, k);
SELECT * FROM l NATURAL JOIN r;
SELECT * FROM l NATURAL FULL JOIN r;
SELECT id, l.id, r.id, l.k, r.k FROM l FULL JOIN r USING (id);
SELECT l.*, r.y FROM l JOIN r USING (id);
SELECT j.id, j.x FROM (l JOIN r USING (id)) AS j;
SELECT * FROM l JOIN r USING (id) JOIN l AS l2 USING (id);
SELECT id, count(*) FROM l FULL JOIN r USING (id) GROUP BY id;
-- sluice: error column "w" specified in USING clause does not exist in left table
SELECT * FROM l JOIN r USING (w);
-- a join behind an alias with column names: they name its columns in order
SELECT * FROM (l CROSS JOIN r) AS x (a, b, c);
SELECT x.a, x.c FROM (l t1 (p, q) JOIN r t2 (s, u) ON t1.p = t2.s) AS x (a, b, c);
SELECT * FROM (l JOIN r USING (id)) AS j (k, v1);
SELECT j.* FROM (l LEFT JOIN r USING (id)) AS j (k);
-- sluice: error table "j" has 5 columns available but 6 columns specified
SELECT * FROM (l JOIN r USING (id)) AS j (a, b, c, d, e, f);
-- The merged column of JOIN ... USING is the left side's column (the
-- right's for RIGHT JOIN): a query grouped by that column may read it.
CREATE TABLE ju1 (f1 INT, f2 BIGINT);
CREATE TABLE ju2 (f1 BIGINT, f22 BIGINT);
INSERT INTO ju1 VALUES (1, 10), (2, 20), (2, 21), (NULL, 5);
INSERT INTO ju2 VALUES (1, 100), (3, 300);
SELECT f1, count(*), sum(f22) FROM ju1 LEFT JOIN ju2 USING (f1) GROUP BY ju1.f1;
SELECT f1, count(*) FROM ju1 RIGHT JOIN ju2 USING (f1) GROUP BY ju2.f1;
SELECT f1, sum(f2) FROM ju1 JOIN ju2 USING (f1) GROUP BY ju2.f1;
-- sluice: error must appear in the GROUP BY clause
SELECT f1, sum(f2) FROM ju1 JOIN ju2 USING (f1) GROUP BY ju1.f1;
SELECT f1, sum(f2) FROM ju1 JOIN ju1 x USING (f1) GROUP BY ju1.f1;
-- sluice: error column "ju1.f1" must appear in the GROUP BY clause
SELECT ju1.f1 FROM ju1 LEFT JOIN ju2 USING (f1) GROUP BY f1;
-- sluice: error must appear in the GROUP BY clause
SELECT f1 FROM ju1 FULL JOIN ju2 USING (f1) GROUP BY ju1.f1;
INSERT INTO ju2 VALUES (2, 200);
DELETE FROM ju1 WHERE f2 = 20;
UPDATE ju1 SET f1 = 3 WHERE f1 IS NULL;
SELECT f1, count(*), sum(f22) FROM ju1 LEFT JOIN ju2 USING (f1) GROUP BY ju1.f1;
SELECT f1, count(*) FROM ju1 RIGHT JOIN ju2 USING (f1) GROUP BY ju2.f1;
