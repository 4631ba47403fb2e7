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
