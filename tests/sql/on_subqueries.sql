-- A subquery in an inner join's ON: over inner joins ON and WHERE are one,
-- so the conjunct is bound in WHERE. In a LEFT JOIN's ON, in a LATERAL
-- subquery around its right side; in a RIGHT or FULL JOIN's, not yet.
CREATE TABLE a (id INT, v INT);
CREATE TABLE b (id INT, w INT);
INSERT INTO a VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO b VALUES (1, 5), (2, 50), (2, 7), (4, 1);
SELECT a.id, b.w FROM a JOIN b ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
SELECT a.id, b.w FROM a JOIN b ON a.id = b.id AND b.w = (SELECT max(w) FROM b x WHERE x.id = a.id);
SELECT a.id, b.w, c.id FROM a JOIN b ON a.id = b.id JOIN a c ON c.id = b.id AND EXISTS (SELECT 1 FROM b y WHERE y.w = c.v / 2);
INSERT INTO b VALUES (3, 100), (1, 1);
DELETE FROM a WHERE id = 2;
-- In a LEFT JOIN's ON: a LATERAL subquery of the right side's rows.
SELECT a.id, b.w FROM a LEFT JOIN b ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
SELECT a.id, bb.w FROM a LEFT JOIN b AS bb ON bb.id = a.id AND EXISTS (SELECT 1 FROM b y WHERE y.w = bb.w * 10 OR y.w = a.v);
SELECT a.id, s.w FROM a LEFT JOIN (SELECT id, w FROM b) s ON a.id = s.id AND s.w IN (SELECT w FROM b WHERE id = 2);
SELECT count(*), count(b.w), count(c.v) FROM a LEFT JOIN b ON a.id = b.id AND (SELECT count(*) FROM b) > 2
  LEFT JOIN a c ON c.v = b.w * 10 AND c.id NOT IN (SELECT id FROM b WHERE w > 60);
SELECT * FROM a LEFT JOIN b ON b.w IN (SELECT v / 10 FROM a);
INSERT INTO b VALUES (2, 30), (3, 4);
UPDATE a SET v = 50 WHERE id = 3;
DELETE FROM b WHERE w = 50;
-- sluice: error a subquery in a JOIN condition is not supported yet
SELECT a.id, b.w FROM a FULL JOIN b ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
-- sluice: error a subquery in a JOIN condition is not supported yet
SELECT a.id, b.w FROM a LEFT JOIN (b JOIN a c ON b.id = c.id) ON a.id = b.id AND b.w > (SELECT min(w) FROM b);
