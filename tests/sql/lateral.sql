-- LATERAL subqueries: bound once over the distinct values of the columns
-- they read (like correlated subqueries), joined back on them. Also LIMIT
-- and OFFSET per outer row, set operations and VALUES reading outer columns.
CREATE TABLE a (id int primary key, n int, g text);
CREATE TABLE b (id int primary key, a_id int, v int);
INSERT INTO a VALUES (1, 2, 'x'), (2, 0, 'y'), (3, 3, NULL), (4, NULL, 'x');
INSERT INTO b VALUES (1, 1, 10), (2, 1, 20), (3, 3, 5), (4, 3, 7), (5, 3, 9), (6, 9, 1);
SELECT a.id, s.total FROM a, LATERAL (SELECT sum(v) AS total FROM b WHERE b.a_id = a.id) s;
SELECT a.id, s.v FROM a CROSS JOIN LATERAL (SELECT v FROM b WHERE b.a_id = a.id AND b.v > a.n) s;
SELECT a.id, s.v FROM a LEFT JOIN LATERAL (SELECT v FROM b WHERE b.a_id = a.id) s ON true;
SELECT a.id, s.v FROM a LEFT JOIN LATERAL (SELECT v FROM b WHERE b.a_id = a.id) s ON s.v > a.n;
SELECT * FROM a JOIN LATERAL (SELECT a.n + 1 AS m) s ON true;
SELECT a.g, s.* FROM a, LATERAL (SELECT count(*) AS c, max(v) AS mx FROM b WHERE b.a_id = a.id AND b.v > coalesce(a.n, 0)) s;
SELECT * FROM a, LATERAL (SELECT b.v FROM b WHERE b.a_id = a.id ORDER BY b.v DESC LIMIT 2) s;
SELECT x.id, y.id FROM a x JOIN LATERAL (SELECT * FROM a z WHERE z.g = x.g AND z.id <> x.id) y ON true;
-- sluice: error The combining JOIN type
SELECT * FROM a RIGHT JOIN LATERAL (SELECT a.n) s ON true;
UPDATE a SET n = 1 WHERE id = 2;
DELETE FROM b WHERE id = 3;
INSERT INTO b VALUES (7, 4, 100), (8, 2, 3);
UPDATE b SET a_id = 1 WHERE id = 5;
DELETE FROM a WHERE id = 1;
SELECT a.id, (SELECT v FROM b WHERE b.a_id = a.id ORDER BY v LIMIT 1) FROM a;
SELECT a.id, s.v FROM a, LATERAL (SELECT v FROM b WHERE b.a_id = a.id ORDER BY v OFFSET 1) s;
SELECT a.id, s.v FROM a, LATERAL (SELECT v FROM b WHERE b.a_id = a.id ORDER BY v LIMIT 1 OFFSET 1) s;
INSERT INTO b VALUES (9, 3, 2), (10, 3, 2);
DELETE FROM b WHERE id = 4;
SELECT a.id, v.x FROM a, LATERAL (VALUES (a.n), (a.id * 10)) v(x);
SELECT a.id, v.* FROM a, LATERAL (SELECT a.n AS p UNION ALL SELECT b.v FROM b WHERE b.a_id = a.id) v;
SELECT a.id, v.* FROM a, LATERAL (SELECT b.v FROM b WHERE b.a_id = a.id UNION SELECT a.n ORDER BY 1 LIMIT 2) v;
SELECT a.id FROM a WHERE a.n IN (SELECT b.v FROM b WHERE b.a_id = a.id UNION ALL SELECT a.id);
UPDATE a SET n = 7 WHERE id = 3;
INSERT INTO a VALUES (5, 5, 'z');
-- t.* of a table without columns, in a LATERAL VALUES: no columns either.
CREATE TABLE nocols();
INSERT INTO nocols DEFAULT VALUES;
INSERT INTO nocols DEFAULT VALUES;
SELECT * FROM nocols n, LATERAL (VALUES(n.*)) v;
SELECT count(*) FROM nocols n, LATERAL (VALUES(n.*)) v;
