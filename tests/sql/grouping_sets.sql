-- GROUPING SETS, ROLLUP and CUBE, with GROUPING(), HAVING and an empty set.
CREATE TABLE g (a INT, b TEXT, c INT, d DATE);
INSERT INTO g VALUES (1, 'x', 10, '2020-01-01'), (1, 'y', 20, '2020-01-02'), (2, 'x', 30, '2020-01-01'), (2, NULL, 40, NULL);
INSERT INTO g VALUES (3, 'z', NULL, '2020-01-03');
DELETE FROM g WHERE c = 20;
SELECT a, b, sum(c), count(*), grouping(a, b) FROM g GROUP BY ROLLUP(a, b);
SELECT a, b, sum(c) FROM g GROUP BY CUBE(a, b);
SELECT a, b, d, count(*) FROM g GROUP BY GROUPING SETS ((a, b), (d), ());
SELECT a, b, sum(c) FROM g GROUP BY a, ROLLUP(b, d) HAVING sum(c) > 5;
SELECT a + 1 AS a1, grouping(a), max(c) FROM g GROUP BY ROLLUP(a) ORDER BY 1;
SELECT count(*) FROM g WHERE false GROUP BY GROUPING SETS ((), (a));
SELECT b, sum(a) FROM g GROUP BY ROLLUP((b, d));
-- SELECT DISTINCT across the sets' rows, and GROUP BY DISTINCT (each set once).
SELECT DISTINCT a, b FROM g GROUP BY ROLLUP(a, b), ROLLUP(a);
SELECT a, b, count(*) FROM g GROUP BY DISTINCT ROLLUP(a, b), ROLLUP(a, c);
SELECT a, b, count(*) FROM g GROUP BY ROLLUP(a, b), ROLLUP(a, c);
-- ORDER BY a key that some sets leave out.
SELECT a, b, count(*), max(a), max(c) FROM g GROUP BY GROUPING SETS (a, b, ()) ORDER BY a, b;
