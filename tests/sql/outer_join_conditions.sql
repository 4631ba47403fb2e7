-- Outer joins on any condition: inequalities between the sides, conditions
-- on the outer side, FULL JOIN ON TRUE/FALSE, OR of equalities.
CREATE TABLE ox (x1 INT, x2 INT);
CREATE TABLE oy (y1 INT, y2 INT);
INSERT INTO ox VALUES (1, 11), (2, 22), (3, NULL), (4, 44), (5, NULL), (1, 11);
INSERT INTO oy VALUES (1, 111), (2, 222), (3, 333), (4, NULL), (NULL, 0);
SELECT * FROM ox LEFT JOIN oy ON (x1 = y1 AND x2 IS NOT NULL);
SELECT * FROM ox LEFT JOIN oy ON (x1 < y1);
SELECT * FROM ox RIGHT JOIN oy ON (x1 = y1 AND x2 > 20);
SELECT * FROM ox FULL JOIN oy ON (x1 = y1 AND y2 > 200);
SELECT * FROM ox FULL JOIN oy ON true;
SELECT * FROM ox FULL JOIN oy ON false;
SELECT * FROM ox LEFT JOIN oy ON x1 = y1 OR x2 = y2;
SELECT count(*), count(y1) FROM ox LEFT JOIN oy ON x2 < y2;
DELETE FROM oy WHERE y1 = 2;
INSERT INTO ox VALUES (2, 22), (NULL, NULL);
UPDATE oy SET y2 = 5 WHERE y1 = 4;
INSERT INTO oy VALUES (6, 600);
-- Columns that cannot be NULL on the side that goes missing.
CREATE TABLE ka (id INT PRIMARY KEY, bal INT NOT NULL);
CREATE TABLE kl (lo INT NOT NULL, label TEXT NOT NULL);
INSERT INTO ka VALUES (1, 10), (2, 200);
INSERT INTO kl VALUES (100, 'x'), (5, 'y');
SELECT * FROM ka LEFT JOIN kl ON ka.bal < kl.lo;
SELECT * FROM ka RIGHT JOIN kl ON ka.bal < kl.lo;
SELECT count(*), count(label) FROM ka LEFT JOIN kl ON ka.bal < kl.lo AND ka.id > 0;
DELETE FROM kl WHERE lo = 100;
