-- A subquery in an inner join's ON: over inner joins ON and WHERE are one,
-- so the conjunct is bound in WHERE. In an outer join's ON, not yet.
CREATE TABLE a (id INT, v INT);
CREATE TABLE b (id INT, w INT);
INSERT INTO a VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO b VALUES (1, 5), (2, 50), (2, 7), (4, 1);
SELECT a.id, b.w FROM a JOIN b ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
SELECT a.id, b.w FROM a JOIN b ON a.id = b.id AND b.w = (SELECT max(w) FROM b x WHERE x.id = a.id);
SELECT a.id, b.w, c.id FROM a JOIN b ON a.id = b.id JOIN a c ON c.id = b.id AND EXISTS (SELECT 1 FROM b y WHERE y.w = c.v / 2);
INSERT INTO b VALUES (3, 100), (1, 1);
DELETE FROM a WHERE id = 2;
-- sluice: error a subquery in a JOIN condition is not supported yet
SELECT a.id, b.w FROM a LEFT JOIN b ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
