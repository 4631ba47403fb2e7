-- A join on an OR of equalities between two 10^4-row tables is a union of
-- keyed joins (each pair once), not a cross product of 10^8 pairs.
CREATE TABLE a (id INT, x INT, y INT);
CREATE TABLE b (id INT, x INT, y INT);
INSERT INTO a SELECT g, g % 1000, g % 7 FROM generate_series(1, 10000) g;
INSERT INTO b SELECT g, g % 997, (g * 3) % 10000 FROM generate_series(1, 10000) g;
INSERT INTO a VALUES (NULL, NULL, 5), (0, 5, NULL);
DELETE FROM a WHERE id % 10 = 3;
UPDATE b SET y = NULL WHERE id % 100 = 0;
SELECT count(*), sum(a.id), sum(b.id) FROM a JOIN b ON a.x = b.x OR a.id = b.y;
SELECT count(*) FROM a, b WHERE (a.x = b.x AND a.y > 2) OR (a.id = b.y) OR (a.y = b.id AND b.x < 10);
SELECT a.id, b.id FROM a JOIN b ON a.id = b.id OR a.id = b.y + 1 WHERE a.id < 50;
SELECT count(*) FROM a JOIN b ON (a.x = b.x OR a.id = b.y) AND a.y <> 3;
