-- ARRAY(subquery), correlated or not: an empty array where it has no row.
CREATE TABLE p (id INT, g TEXT);
CREATE TABLE c (pid INT, v INT, s TEXT);
INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, NULL);
INSERT INTO c VALUES (1, 10, 'x'), (1, 5, 'y'), (2, 7, NULL), (1, NULL, 'z');
SELECT id, ARRAY(SELECT v FROM c WHERE c.pid = p.id ORDER BY v) FROM p;
SELECT id, ARRAY(SELECT s FROM c WHERE c.pid = p.id ORDER BY s DESC) AS ss FROM p;
SELECT ARRAY(SELECT id FROM p ORDER BY id);
SELECT g, array_length(ARRAY(SELECT v FROM c WHERE c.pid = p.id AND v IS NOT NULL), 1) FROM p;
INSERT INTO c VALUES (3, 1, 'q'), (3, 2, 'r');
DELETE FROM c WHERE v = 5;
UPDATE p SET id = 4 WHERE id = 2;
-- ARRAY(subquery) in the subquery's order, by another column than its own
-- too (then the ORDER BY key is a column the subquery does not show).
SELECT id, ARRAY(SELECT s FROM c WHERE c.pid = p.id ORDER BY v) FROM p;
SELECT id, ARRAY(SELECT s FROM c WHERE c.pid = p.id ORDER BY v DESC, s DESC) FROM p;
SELECT ARRAY(SELECT g FROM p ORDER BY id DESC);
SELECT ARRAY(SELECT v FROM c ORDER BY s, v);
SELECT ARRAY(SELECT v FROM c ORDER BY v NULLS FIRST), ARRAY(SELECT v FROM c ORDER BY v DESC NULLS LAST);
SELECT id, ARRAY(SELECT v FROM c WHERE c.pid = p.id ORDER BY s NULLS FIRST, v) FROM p;
-- sluice: error ARRAY(subquery) whose ORDER BY keys run different ways
SELECT ARRAY(SELECT v FROM c ORDER BY s DESC, v);
-- A set-returning function yields its rows in its order: ARRAY() of a query
-- over it, array_agg and string_agg without an ORDER BY, and a query over a
-- subquery over it take them so.
SELECT ARRAY(SELECT ARRAY['Hello', i::text] FROM generate_series(9, 11) i);
SELECT ARRAY(SELECT i FROM generate_series(3, 1, -1) i);
SELECT ARRAY(SELECT x || '!' FROM unnest(ARRAY['b', 'c', 'a']) x);
SELECT array_agg(ARRAY['Hello', i::text]) FROM generate_series(9, 11) g(i);
SELECT array_agg(i), string_agg(i::text, ',') FROM generate_series(11, 9, -1) g(i);
SELECT string_agg(x, ',') FROM unnest(ARRAY['b', 'a', 'c']) x;
SELECT array_agg(x) FROM unnest(ARRAY[3, 1, 2]) WITH ORDINALITY AS t(x, n);
SELECT array_agg(y) FROM (SELECT x * 2 AS y FROM unnest(ARRAY[3, 1, 2]) x) s;
SELECT * FROM generate_series(10, 1, -1) i LIMIT 3;
SELECT * FROM generate_series(1, 4) g;
