-- JOINs that read columns they do not join: a LATERAL item inside a JOIN
-- that reads FROM items before the JOIN, and a JOIN inside a subquery whose
-- items or conditions read the enclosing query (PostgreSQL's join.sql has
-- such queries). The JOIN is bound as LATERAL (SELECT * FROM join), over
-- the distinct values of what it reads; the sides that read them, and the
-- sides an outer join keeps, carry those values, and are joined on them.
CREATE TABLE a (id int primary key, n int, g text);
CREATE TABLE b (id int primary key, a_id int, v int);
CREATE TABLE c (id int primary key, w int);
INSERT INTO a VALUES (1, 2, 'x'), (2, 0, 'y'), (3, 3, NULL), (4, NULL, 'x');
INSERT INTO b VALUES (1, 1, 10), (2, 1, 20), (3, 3, 5), (4, 3, 7), (5, 3, 2), (6, 9, 1);
INSERT INTO c VALUES (1, 2), (2, 3), (3, NULL), (4, 10);
-- a LATERAL item inside a JOIN reads an earlier FROM item
SELECT count(*) FROM a, b JOIN LATERAL (VALUES (a.n)) s(x) ON b.v = s.x;
SELECT a.id, b.id, s.x FROM a, b JOIN LATERAL (VALUES (a.n), (-1)) s(x) ON b.a_id = s.x;
SELECT * FROM a, c LEFT JOIN LATERAL (SELECT a.n FROM b WHERE b.id < 3) s(z) ON c.w = s.z;
SELECT a.id, j.* FROM a, (c LEFT JOIN LATERAL (SELECT b.v FROM b WHERE b.a_id = a.id AND b.v > c.w) s ON true) j;
SELECT a.id, c.id, s.* FROM a, c JOIN LATERAL (SELECT a.n + c.w AS t) s ON s.t > 4 WHERE a.id < 4;
-- a JOIN inside a subquery reads the enclosing query
SELECT * FROM a, LATERAL (SELECT * FROM c LEFT JOIN b ON (c.w = b.v AND a.id = b.a_id)) s;
SELECT a.id, s.* FROM a, LATERAL (SELECT c.id AS cid, t.v FROM c JOIN (SELECT b.v FROM b WHERE b.a_id = a.id) t ON t.v > c.w) s;
SELECT a.id, s.* FROM a, LATERAL (SELECT t.v, c.id AS cid FROM (SELECT b.v FROM b WHERE b.a_id = a.id) t RIGHT JOIN c ON c.w < 3) s;
SELECT a.id, s.* FROM a, LATERAL (SELECT t.v, c.w FROM (SELECT b.v FROM b WHERE b.a_id = a.id) t FULL JOIN c ON c.w = t.v) s;
SELECT a.id, s.* FROM a, LATERAL (SELECT 1 AS x FROM (SELECT a.n AS lat, c.w AS loc FROM c) t RIGHT JOIN b ON b.v > 5 WHERE t.loc = t.lat) s;
SELECT a.id, (SELECT count(*) FROM b JOIN c ON b.v = c.w + a.n) FROM a;
SELECT a.id, (SELECT max(u.v) FROM c LEFT JOIN b u USING (id) WHERE u.a_id = a.id OR c.w = a.n) FROM a;
SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b FULL JOIN c ON b.v = c.w AND a.n = 2 WHERE c.id = a.id);
-- an earlier table's whole row in a LATERAL select list
SELECT a.id, s.* FROM a, LATERAL (SELECT a.* FROM c WHERE c.id = a.id) s;
SELECT s.* FROM a LEFT JOIN b ON b.a_id = a.id, LATERAL (SELECT a.*, b.* FROM c LIMIT 1) s WHERE a.id <> 2;
SELECT t.* FROM a, LATERAL (SELECT b.v FROM b WHERE b.a_id = a.id) s, LATERAL (SELECT s.*, a.g FROM c WHERE c.w < s.v) t;
-- sluice: error The combining JOIN type
SELECT * FROM a, b RIGHT JOIN LATERAL (SELECT a.n) s ON true;
UPDATE a SET n = 3 WHERE id = 2;
DELETE FROM b WHERE id = 3;
INSERT INTO b VALUES (7, 4, 3), (8, 2, 10), (9, NULL, NULL);
UPDATE c SET w = 7 WHERE id = 3;
DELETE FROM a WHERE id = 1;
INSERT INTO a VALUES (5, NULL, NULL), (6, 10, 'z');
INSERT INTO c VALUES (5, 0);

-- A function of the left side's columns joined with ON (LEFT JOIN unnest(t.a)).
select * from (values (1, array[10,20]), (2, array[20,30])) as v1(v1x,v1ys) left join unnest(v1ys) as u1(u1y) on u1y = v1x * 10;
select * from (values (1, array[10,20]), (2, array[20,30])) as v1(v1x,v1ys) left join (values (1, 10), (2, 20)) as v2(v2x,v2y) on v2x = v1x left join unnest(v1ys) as u1(u1y) on u1y = v2y;
select * from (values (1, array[10,20]), (2, array[20,30])) as v1(v1x,v1ys) join (values (1, 10), (2, 20)) as v2(v2x,v2y) on v2x = v1x join unnest(v1ys) as u1(u1y) on u1y = v2y;
