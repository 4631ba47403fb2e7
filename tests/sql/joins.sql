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
