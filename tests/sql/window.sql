CREATE TABLE e (dep TEXT, id INT, sal INT, d DATE);
INSERT INTO e VALUES ('a', 1, 100, '2020-01-01'), ('a', 2, 200, '2020-01-03'), ('a', 3, 200, '2020-01-10'), ('b', 4, 50, '2020-01-01');
INSERT INTO e VALUES ('b', 5, NULL, '2020-02-01'), ('c', 6, 10, NULL), ('a', 7, 300, '2020-01-04');
DELETE FROM e WHERE id = 2;
INSERT INTO e VALUES ('a', 8, 150, '2020-01-05');
SELECT dep, id, row_number() OVER (PARTITION BY dep ORDER BY id), rank() OVER (ORDER BY sal), dense_rank() OVER (ORDER BY sal DESC) FROM e;
SELECT id, lag(sal) OVER w, lead(sal, 2, -1) OVER w, first_value(sal) OVER w, last_value(sal) OVER w, nth_value(sal, 2) OVER w FROM e WINDOW w AS (PARTITION BY dep ORDER BY id);
SELECT id, sum(sal) OVER (PARTITION BY dep ORDER BY id), avg(sal) OVER (PARTITION BY dep), count(*) OVER (), min(sal) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM e;
SELECT id, sum(sal) OVER (ORDER BY sal ROWS UNBOUNDED PRECEDING EXCLUDE CURRENT ROW), sum(sal) OVER (ORDER BY sal GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW), sum(sal) OVER (ORDER BY sal RANGE BETWEEN 100 PRECEDING AND 50 FOLLOWING) FROM e;
SELECT id, percent_rank() OVER (ORDER BY sal), cume_dist() OVER (ORDER BY sal), ntile(3) OVER (ORDER BY id) FROM e;
SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL '3 days' PRECEDING AND CURRENT ROW), sum(sal) OVER (ORDER BY d DESC RANGE BETWEEN '2 days' PRECEDING AND '1 day' FOLLOWING) FROM e;
SELECT id, sal * 2 + sum(sal) OVER (PARTITION BY dep) AS x, rank() OVER (PARTITION BY dep ORDER BY sal) * 10 FROM e;
SELECT * FROM (SELECT id, row_number() OVER (ORDER BY id DESC) AS r FROM e) s WHERE r <= 3;
SELECT id, sum(sal) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES), last_value(id) OVER (ORDER BY sal RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM e;
-- An untyped NULL is the integer ntile() takes.
SELECT id, ntile(NULL) OVER (ORDER BY id) FROM e;
-- CREATE OR REPLACE VIEW replaces the query, keeping the columns.
CREATE VIEW ew AS SELECT id, sum(sal) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM e;
SELECT * FROM ew;
CREATE OR REPLACE VIEW ew AS SELECT id, sum(sal) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS s FROM e;
SELECT * FROM ew;
-- sluice: error cannot drop columns from view
CREATE OR REPLACE VIEW ew AS SELECT id FROM e;
SELECT pg_get_viewdef('ew');
-- Window functions over a grouped query: computed over the groups, after
-- HAVING; their arguments, partitions and orders may be aggregates.
SELECT dep, sum(sal), sum(sum(sal)) OVER (ORDER BY dep), rank() OVER (ORDER BY count(*) DESC, dep), row_number() OVER (ORDER BY dep DESC) FROM e GROUP BY dep;
SELECT dep, count(*), sum(count(*)) OVER () FROM e GROUP BY dep HAVING count(*) > 1;
SELECT SUM(COUNT(sal)) OVER () FROM e WHERE sal = 42;
SELECT dep, lag(max(sal), 1, -1) OVER w, first_value(dep) OVER w FROM e GROUP BY dep WINDOW w AS (ORDER BY min(id));
SELECT d IS NULL AS n, sal, sum(sal) OVER (PARTITION BY d IS NULL ORDER BY sal) FROM e GROUP BY d IS NULL, sal;
-- sluice: error must appear in the GROUP BY clause
SELECT dep, sum(sal) OVER (ORDER BY id) FROM e GROUP BY dep;
SELECT dep, sum(sum(sal)) OVER () FROM e GROUP BY ROLLUP (dep);
-- In ORDER BY, and inside a function call.
SELECT dep, id, rank() OVER w FROM e WINDOW w AS (PARTITION BY dep ORDER BY sal) ORDER BY rank() OVER w, id;
SELECT id, upper(first_value(dep) OVER (ORDER BY id DESC)), abs(lag(sal) OVER (ORDER BY id) - 1000) FROM e;
INSERT INTO e VALUES ('c', 9, 20, '2020-03-01'), ('d', 10, 5, NULL);
UPDATE e SET sal = 120 WHERE id = 1;
DELETE FROM e WHERE id = 4;
SELECT dep, sum(sal), sum(sum(sal)) OVER (ORDER BY dep), rank() OVER (ORDER BY count(*) DESC, dep), row_number() OVER (ORDER BY dep DESC) FROM e GROUP BY dep;
SELECT dep, count(*), sum(count(*)) OVER () FROM e GROUP BY dep HAVING count(*) > 1;

-- RANGE offsets of months and years move a date or timestamp on the
-- calendar (2002-10-19 less a year is 2001-10-19, not 360 days before).
CREATE TABLE cal (id INT, d DATE, ts TIMESTAMP NOT NULL);
INSERT INTO cal VALUES (1, '2000-10-19', '2000-10-19 09:23:54'), (2, '2001-10-19', '2001-10-19 18:23:54'),
  (3, '2001-10-20', '2001-10-19 09:23:54.25'), (4, '2002-10-19', '2002-10-19 10:23:54'),
  (5, '2004-02-29', '2004-02-29 00:00:00'), (6, '2005-02-28', '2005-03-01 00:00:00'), (7, NULL, '2005-02-28 00:00:00');
SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '1 year' PRECEDING AND CURRENT ROW),
  sum(id) OVER (ORDER BY ts RANGE BETWEEN CURRENT ROW AND interval '1 year 2 hours' FOLLOWING),
  first_value(id) OVER (ORDER BY ts DESC RANGE BETWEEN interval '1 mon' PRECEDING AND interval '1 year' FOLLOWING)
FROM cal;
SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN interval '1 year' PRECEDING AND CURRENT ROW),
  max(id) OVER (ORDER BY d DESC RANGE BETWEEN CURRENT ROW AND interval '1 year 1 day' FOLLOWING)
FROM cal;
UPDATE cal SET ts = ts + interval '1 day' WHERE id = 4;
DELETE FROM cal WHERE id = 2;
SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '1 year' PRECEDING AND CURRENT ROW) FROM cal;
