-- NOW(), CURRENT_TIMESTAMP, LOCALTIMESTAMP and CURRENT_DATE in a view
-- outside a temporal filter: the clock relation, joined where the view reads
-- it (the select list, aggregates, GROUP BY, HAVING, WHERE conjuncts a
-- temporal filter cannot take, subqueries, ORDER BY, inner and LEFT joins'
-- ON). The runner's clock is PostgreSQL's time, so both read one instant.
CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP, d DATE);
INSERT INTO ev VALUES (1, '2020-01-01 10:00', '2020-01-01'), (2, '2099-01-01', '2099-01-01'), (3, NULL, NULL);
SELECT id, ts < now() AS past FROM ev;
SELECT id, CASE WHEN d < CURRENT_DATE THEN 'past' ELSE 'future' END AS k FROM ev;
SELECT count(*) FILTER (WHERE ts < now()) AS n, max(ts) < CURRENT_TIMESTAMP AS m FROM ev;
SELECT id FROM ev WHERE ts < now() OR ts IS NULL;
SELECT id FROM ev WHERE extract(year from now()) > 2000 AND ts > now() - interval '100 years';
SELECT now() > '2020-01-01'::timestamp AS after, CURRENT_DATE > '2020-01-01'::date AS d2, LOCALTIMESTAMP(0) IS NOT NULL AS l;
SELECT e.id FROM ev e JOIN ev f ON e.id = f.id AND f.ts < now();
SELECT id, (SELECT count(*) FROM ev x WHERE x.ts < now()) AS c FROM ev;
SELECT date_trunc('year', now()) > ts AS old, count(*) FROM ev GROUP BY 1;
SELECT ts < now() AS p, count(*) FROM ev GROUP BY ts < now() HAVING max(ts) < now() + interval '1000 years';
SELECT CURRENT_TIME > '00:00' AS t;
WITH w AS (SELECT id, ts > now() AS fut FROM ev) SELECT * FROM w WHERE fut;
SELECT id FROM ev WHERE ts < now() UNION ALL SELECT 10 WHERE now() > '2000-01-01';
SELECT * FROM (SELECT id, now() - ts > interval '1 day' AS old FROM ev) s WHERE old;
SELECT id, d < CURRENT_DATE AS past FROM ev WHERE d < CURRENT_DATE + 100000;
SELECT id FROM ev WHERE ts::date < CURRENT_DATE;
SELECT id FROM ev e WHERE EXISTS (SELECT 1 FROM ev f WHERE f.id = e.id AND f.ts < now());
-- In a LEFT JOIN's ON (a LATERAL subquery of the right side's rows), and
-- beside an enclosing query's column.
SELECT e.id, f.id AS f FROM ev e LEFT JOIN ev f ON e.id = f.id AND f.ts < now();
SELECT e.id, f.id AS f FROM ev e LEFT JOIN ev f ON f.ts < now() - (e.id * interval '1 year');
SELECT id, (SELECT count(*) FROM ev x WHERE x.ts < now() - (e.id * interval '1 day')) AS c FROM ev e;
-- CURRENT_TIME and LOCALTIME have no temporal filter: the clock relation.
CREATE TABLE tt (id INT, t TIME, ts TIMESTAMP);
INSERT INTO tt VALUES (1, '00:00:01', '2020-01-01'), (2, '23:59:59.9', '2999-01-01');
SELECT id FROM tt WHERE t < CURRENT_TIME;
SELECT id FROM tt WHERE t < LOCALTIME AND ts < now();
SELECT id, CURRENT_TIME > t AS later FROM tt;
INSERT INTO tt VALUES (3, '00:00:00', NULL);
INSERT INTO ev VALUES (4, '1999-01-01', '1999-01-01');
DELETE FROM ev WHERE id = 1;
UPDATE ev SET ts = '2001-01-01' WHERE id = 2;
-- In ORDER BY (a top-k over the clock relation).
SELECT id FROM ev ORDER BY ts < now(), id LIMIT 2;
SELECT id, ts FROM ev ORDER BY abs(extract(epoch from now() - ts)) NULLS FIRST, id LIMIT 3;
SELECT ts < now() AS past, count(*) FROM ev GROUP BY 1 ORDER BY max(ts) < now(), 1 LIMIT 1;
-- sluice: error NOW() in a view's window, a UNION's ORDER BY or an outer join's ON condition is not supported yet
SELECT id, rank() OVER (ORDER BY ts < now(), id) FROM ev;
-- sluice: error NOW() in a view's window, a UNION's ORDER BY or an outer join's ON condition is not supported yet
SELECT e.id FROM ev e FULL JOIN ev f ON e.id = f.id AND f.ts < now();
