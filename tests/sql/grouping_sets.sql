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
-- Window functions over GROUPING SETS: over the union of every set's groups.
CREATE TABLE gw (a INT, b INT, c INT);
INSERT INTO gw VALUES (1, 1, 1), (1, 1, 2), (1, 2, 2), (2, 2, 2), (2, 2, 3), (3, 1, 4), (NULL, 1, 5);
select a, b, sum(c), sum(sum(c)) over (order by a,b) as rsum from gw group by rollup (a,b) order by rsum, a, b;
select a, sum(c), rank() over (order by sum(c) desc), grouping(a) from gw group by cube(a) having count(*) > 1;
select a, b, count(*), row_number() over w from gw group by grouping sets ((a), (b)) window w as (partition by grouping(a, b) order by count(*), a, b);
DELETE FROM gw WHERE c = 2;
INSERT INTO gw VALUES (3, 3, 3);
-- GROUPING() in a subquery of a grouped query, of that query's grouping
-- expressions: an outer reference, constant per group; a subquery's own
-- GROUP BY keeps its GROUPING() of its own columns.
SELECT a, b, (SELECT grouping(a, b)), (SELECT grouping(b) + count(*) FROM (VALUES (1), (2)) v(z) WHERE z > 1) FROM g GROUP BY ROLLUP(a, b);
SELECT (SELECT 0) FROM g GROUP BY ROLLUP(a, b);
SELECT (SELECT 1) FROM g WHERE false GROUP BY GROUPING SETS ((a), ());
SELECT a, (SELECT grouping(a)) FROM g GROUP BY a;
SELECT (SELECT (SELECT grouping(x, y) FROM (VALUES (1)) v2(z)) FROM (VALUES (1, 2)) v1(x, y) GROUP BY (x, y)) FROM g GROUP BY ROLLUP(a, b);
SELECT a, (SELECT (SELECT grouping(a, b) FROM (VALUES (1)) v2(z)) FROM (VALUES (1, 2)) v1(x, y) GROUP BY (x, y)) FROM g GROUP BY CUBE(a, b);
SELECT a, (SELECT sum(c) + grouping(c) FROM gw GROUP BY ROLLUP(c) ORDER BY 1 LIMIT 1) FROM g GROUP BY ROLLUP(a);
SELECT a, sum(c) FROM g GROUP BY ROLLUP(a) HAVING (SELECT grouping(a)) = 0 OR sum(c) > 50;
INSERT INTO g VALUES (4, 'w', 5, '2020-01-04');
UPDATE gw SET c = 9 WHERE a = 1;
-- select list positions in grouping sets; a grouping expression grouped
-- whole where a part of it is another set's
SELECT a, b, sum(c) FROM g GROUP BY GROUPING SETS ((1, 2), 1, ()) ORDER BY 1, 2;
SELECT a + 1, sum(c) FROM g GROUP BY ROLLUP (1);
SELECT (a + c) * 2, count(*) FROM g GROUP BY GROUPING SETS (a + c, a);
SELECT (a + c) * 2, a, count(*) FROM g GROUP BY CUBE (a + c, a);
-- select list names in grouping sets, where no FROM item has a column of
-- that name (a FROM column of the name wins, as in a plain GROUP BY)
SELECT a + 1 AS x, sum(c) FROM g GROUP BY ROLLUP (x);
SELECT a AS x, b AS y, count(*) FROM g GROUP BY CUBE (x, y);
SELECT c AS a, count(*) FROM g GROUP BY ROLLUP (a);
SELECT g.a * 10 AS k, count(*) FROM g JOIN gw ON g.a = gw.a GROUP BY ROLLUP (k);
SELECT s AS n, count(*) FROM generate_series(1, 4) s GROUP BY GROUPING SETS ((n), ());
SELECT v.a + 1 AS z, sum(v.c) FROM (SELECT a, c FROM g) v GROUP BY ROLLUP (z);
SELECT 1 AS one, count(*) FROM g GROUP BY ROLLUP (one);
DELETE FROM g WHERE a = 4;
-- ORDER BY an expression that is not an output column, over the sets
SELECT a, b, sum(c) FROM g GROUP BY ROLLUP (a, b) ORDER BY coalesce(a, 0) + length(coalesce(b, '')), a, b;
SELECT a, count(*) FROM g GROUP BY CUBE (a, b) ORDER BY (a + 1) DESC NULLS LAST, count(*), 1 LIMIT 4;
SELECT DISTINCT a FROM g GROUP BY GROUPING SETS ((a), (a, b), ()) ORDER BY a;
SELECT a, sum(c) AS s FROM g GROUP BY ROLLUP (a) ORDER BY sum(c) - a NULLS FIRST, s;
-- Two select list items of one expression, named apart in the sets.
SELECT a AS x1, a AS x2 FROM g GROUP BY x1, ROLLUP(x2);
SELECT a AS x1, a + 0 AS x2, count(*) FROM g GROUP BY x1, ROLLUP(x2);
SELECT a AS x1, count(*) FROM g GROUP BY 1, ROLLUP(x1);
-- A grouping expression in the direct arguments of an ordered-set
-- aggregate is NULL in the sets that leave it out.
CREATE TABLE gd (a INT, b INT);
INSERT INTO gd VALUES (1, 1), (1, 4), (1, 5), (3, 1), (3, 2);
SELECT grouping(a), a, rank(a) WITHIN GROUP (ORDER BY b NULLS FIRST), rank(a) WITHIN GROUP (ORDER BY b NULLS LAST), percentile_disc(a * 0.1) WITHIN GROUP (ORDER BY b), cume_dist(a + 1) WITHIN GROUP (ORDER BY b) FROM gd GROUP BY ROLLUP (a);
INSERT INTO gd VALUES (2, 7), (NULL, 3);
DELETE FROM gd WHERE b = 4;
SELECT grouping(a), a, rank(a) WITHIN GROUP (ORDER BY b NULLS FIRST), rank(a) WITHIN GROUP (ORDER BY b NULLS LAST), percentile_disc(a * 0.1) WITHIN GROUP (ORDER BY b), cume_dist(a + 1) WITHIN GROUP (ORDER BY b) FROM gd GROUP BY ROLLUP (a);
-- Two select list items of the same expression are grouping expressions
-- apart, and so is a constant (NULL in the sets without it), as in
-- PostgreSQL's groupingsets.sql.
CREATE TABLE ga (g INT, q INT);
INSERT INTO ga VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO ga VALUES (2, 5);
DELETE FROM ga WHERE g = 1;
UPDATE ga SET q = 7 WHERE g = 3;
INSERT INTO ga VALUES (NULL, 1);
SELECT g AS alias1, g AS alias2, sum(q) FROM ga GROUP BY alias1, ROLLUP(alias2);
SELECT g AS a, g AS b, g AS c, count(*) FROM ga GROUP BY CUBE(a, b, c);
SELECT 1 AS x, g, sum(q) FROM ga GROUP BY GROUPING SETS (1, 2);
SELECT * FROM (SELECT 1 AS x, g, sum(q) FROM ga GROUP BY GROUPING SETS (1, 2)) s WHERE x = 1 OR g = 2;
SELECT 'k' AS x, 'k' AS y, g, count(*) FROM ga GROUP BY GROUPING SETS (x, y, g);
