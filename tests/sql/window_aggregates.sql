-- Window aggregates with FILTER, the collecting aggregates (ARRAY_AGG,
-- STRING_AGG and the JSON ones) over every kind of frame, RANGE frames
-- ordered by an interval, frame offsets of subqueries, and subqueries in a
-- window function's arguments. Each query is checked as a view, kept up to
-- date through the changes below it. Orders are total where a frame or a
-- collected array would depend on the order of peers.
CREATE TABLE k (n INT);
INSERT INTO k VALUES (1), (3);
CREATE TABLE w (p TEXT, id INT, v INT, s TEXT, f BOOLEAN);
INSERT INTO w VALUES ('a', 1, 10, 'x', true), ('a', 2, NULL, NULL, false), ('a', 3, 30, 'z', NULL),
  ('b', 4, 40, 'u', true), ('b', 5, 50, NULL, true), ('c', 6, NULL, 'q', false), (NULL, 9, 90, 'n', true);
-- FILTER: only the rows where it is TRUE (not NULL) count, over whole
-- partitions, running frames, ROWS frames with offsets and EXCLUDE.
SELECT id, sum(v) FILTER (WHERE f) OVER (PARTITION BY p ORDER BY id),
  count(*) FILTER (WHERE v > 15) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
  max(v) FILTER (WHERE id <> 3) OVER (PARTITION BY p),
  avg(v) FILTER (WHERE s IS NOT NULL) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW),
  count(v) FILTER (WHERE NOT f) OVER (ORDER BY v RANGE BETWEEN 20 PRECEDING AND 10 FOLLOWING)
FROM w;
-- ARRAY_AGG keeps NULLs, STRING_AGG skips them; in the window's order.
SELECT id, array_agg(v) OVER (PARTITION BY p ORDER BY id),
  array_agg(s) FILTER (WHERE f) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
  string_agg(s, ',') OVER (ORDER BY id RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),
  array_agg(id) OVER (ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
  string_agg(p, '') OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE TIES)
FROM w;
SELECT id, array_agg(ARRAY[id, v]) OVER (ORDER BY id ROWS 1 PRECEDING), string_agg(s::bytea, '\x2c') OVER (PARTITION BY p ORDER BY id) FROM w;
SELECT id, json_agg(s) OVER w, jsonb_agg(v) OVER w, json_object_agg(id, s) OVER w,
  jsonb_object_agg(id, v) FILTER (WHERE v IS NOT NULL) OVER w
FROM w WINDOW w AS (PARTITION BY p ORDER BY id GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING);
-- Over the groups of a grouped query.
SELECT p, sum(v), sum(sum(v)) FILTER (WHERE p <> 'b') OVER (ORDER BY p DESC), array_agg(p) OVER (ORDER BY p) FROM w GROUP BY p;
SELECT p, count(*), json_agg(p) OVER (ORDER BY p),
  jsonb_object_agg(coalesce(p, '-'), sum(v)) OVER (ORDER BY p ROWS 1 PRECEDING),
  string_agg(p, '/') FILTER (WHERE p > 'a') OVER ()
FROM w GROUP BY p;
-- PostgreSQL's refusals.
-- sluice: error aggregate functions are not allowed in FILTER
SELECT p, string_agg(p, '/') FILTER (WHERE count(*) > 1) OVER () FROM w GROUP BY p;
-- sluice: error DISTINCT is not implemented for window functions
SELECT count(DISTINCT v) OVER (PARTITION BY p) FROM w;
-- sluice: error DISTINCT is not implemented for window functions
SELECT sum(DISTINCT v) OVER (ORDER BY id) FROM w;
-- sluice: error FILTER is not implemented for non-aggregate window functions
SELECT lag(v) FILTER (WHERE f) OVER (ORDER BY id) FROM w;
-- sluice: error aggregate ORDER BY is not implemented for window functions
SELECT array_agg(v ORDER BY id) OVER () FROM w;
-- sluice: error argument of FILTER must be type boolean
SELECT sum(v) FILTER (WHERE v) OVER () FROM w;
-- sluice: error A string_agg() separator that is not a constant string is not supported yet
SELECT string_agg(s, p) OVER () FROM w;
INSERT INTO w VALUES ('a', 7, 70, 'k', true), ('c', 8, 80, NULL, NULL), ('b', 10, NULL, 'm', false);
UPDATE w SET f = NOT f, v = v + 1 WHERE id IN (1, 4, 6);
UPDATE w SET p = 'c' WHERE id = 5;
DELETE FROM w WHERE id IN (2, 9);

-- A long partition changed at its start, middle and end, several rows a
-- step: the collecting aggregates over ROWS frames with offsets recompute
-- only the rows near a change.
CREATE TABLE r (p INT, k INT, v INT);
INSERT INTO r SELECT g % 3, g, (g * 37) % 101 FROM generate_series(1, 60) g;
UPDATE r SET v = NULL WHERE k % 7 = 0;
SELECT p, k, array_agg(v) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING),
  string_agg(v::text, '-') FILTER (WHERE v % 2 = 0) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING)
FROM r;
SELECT k, sum(v) FILTER (WHERE v > 50) OVER (ORDER BY k ROWS BETWEEN 3 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) FROM r;
INSERT INTO r VALUES (0, 100, 5), (1, -5, 7), (2, 30, 9), (0, 31, NULL);
DELETE FROM r WHERE k IN (3, 4, 5, 40, 57);
UPDATE r SET v = v + 1 WHERE k IN (10, 11, 12, 59);

-- RANGE offsets over an interval: intervals compare by their span, a month
-- as 30 days, as in PostgreSQL.
CREATE TABLE iv (id INT, f INTERVAL);
INSERT INTO iv VALUES (1, '1 year'), (2, '2 years 1 day'), (3, '13 months'), (4, '350 days'), (5, NULL),
  (6, '3 years'), (7, '-1 mon'), (8, '1 day 02:00');
SELECT id, f, first_value(id) OVER w, last_value(id) OVER w, count(*) OVER w FROM iv
WINDOW w AS (ORDER BY f RANGE BETWEEN '1 year' PRECEDING AND '1 year' FOLLOWING);
SELECT id, f, sum(id) OVER (ORDER BY f DESC RANGE BETWEEN '6 months' PRECEDING AND '1 day' FOLLOWING),
  array_agg(id) OVER (ORDER BY f RANGE BETWEEN CURRENT ROW AND '25 hours' FOLLOWING)
FROM iv;
-- sluice: error invalid preceding or following size in window function
SELECT id, sum(id) OVER (ORDER BY f RANGE BETWEEN '-1 year' PRECEDING AND CURRENT ROW) FROM iv;
INSERT INTO iv VALUES (9, '1 year 2 mons'), (10, '25 months'), (11, NULL);
UPDATE iv SET f = f + '1 mon' WHERE id IN (1, 6);
DELETE FROM iv WHERE id IN (3, 5);

-- Frame offsets of subqueries and of constants: the subquery's answer
-- joins every row, so a change of it recomputes the windows. (k has rows
-- from the start: a NULL offset is an error.)
SELECT id, sum(v) OVER (ORDER BY id ROWS (SELECT min(n) FROM k) + 1 PRECEDING),
  sum(v) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN CURRENT ROW AND (SELECT max(n) FROM k) FOLLOWING),
  count(*) OVER (ORDER BY v GROUPS BETWEEN 1 + 1 PRECEDING AND CURRENT ROW),
  array_agg(id) OVER (ORDER BY id ROWS BETWEEN (SELECT count(*) FROM k) PRECEDING AND 2 * 1 PRECEDING)
FROM w;
-- A subquery as an argument, correlated or not.
SELECT id, lead(v, (SELECT n FROM k WHERE n = w.id % 4)) OVER (ORDER BY id),
  lag(v, (SELECT min(n) FROM k), -1) OVER (PARTITION BY p ORDER BY id),
  sum((SELECT max(n) FROM k) * v) OVER (ORDER BY id)
FROM w;
-- sluice: error frame starting offset must not be null
SELECT id, sum(v) OVER (ORDER BY id ROWS (SELECT n FROM k WHERE n > 100) PRECEDING) FROM w;
-- sluice: error A RANGE frame offset that is not a constant is not supported yet
SELECT id, sum(v) OVER (ORDER BY id RANGE (SELECT min(n) FROM k) PRECEDING) FROM w;
-- sluice: error column "v" does not exist
SELECT id, sum(v) OVER (ORDER BY id ROWS v PRECEDING) FROM w;
INSERT INTO k VALUES (0);
INSERT INTO w VALUES ('a', 11, 110, 'e', true);
DELETE FROM k WHERE n = 0;
UPDATE k SET n = 2 WHERE n = 3;
DELETE FROM w WHERE id = 4;

-- A RANGE offset of constants over a NOT NULL key (a rolling aggregate),
-- and one of a subquery, which is refused.
CREATE TABLE rk (k INT NOT NULL, v INT);
INSERT INTO rk VALUES (1, 10), (2, 20), (4, NULL), (7, 70), (8, 80);
SELECT k, sum(v) OVER (ORDER BY k RANGE BETWEEN 1 + 2 PRECEDING AND CURRENT ROW), count(*) OVER (ORDER BY k RANGE 2 * 2 PRECEDING) FROM rk;
-- sluice: error A RANGE frame offset that is not a constant is not supported yet
SELECT k, sum(v) OVER (ORDER BY k RANGE BETWEEN (SELECT min(n) FROM k) PRECEDING AND CURRENT ROW) FROM rk;
INSERT INTO rk VALUES (5, 50), (3, NULL);
DELETE FROM rk WHERE k = 2;

-- Over a subquery whose ORDER BY starts with the window's partition (and
-- order), rows keep the rest of its order, as in PostgreSQL's plan: a
-- window without ORDER BY (one peer group) sees them in that order.
CREATE TABLE so (four INT, ten INT, u INT);
INSERT INTO so VALUES (0, 0, 1), (0, 4, 2), (0, 8, 3), (1, 1, 4), (1, 5, 5), (1, 9, 6), (2, 2, 7), (3, 3, 8), (3, 7, 9), (NULL, 6, 10);
SELECT four, ten, last_value(ten) OVER (PARTITION BY four), nth_value(ten, 2) OVER (PARTITION BY four),
  array_agg(ten) OVER (PARTITION BY four ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
FROM (SELECT * FROM so ORDER BY four, ten DESC) s;
SELECT four, ten, first_value(u) OVER (ORDER BY four), array_agg(u) OVER (ORDER BY four)
FROM (SELECT * FROM so WHERE ten < 9 ORDER BY four, u) s;
SELECT u, string_agg(ten::text, ',') OVER () FROM (SELECT * FROM so ORDER BY u DESC) s;
INSERT INTO so VALUES (0, 12, 11), (2, -1, 12);
DELETE FROM so WHERE u IN (2, 6);
UPDATE so SET ten = ten + 10 WHERE u = 4;

-- Subqueries beside window functions: in the select list, in WHERE (under a
-- top-k of ranks, too), in a partition; one in a rolling aggregate is
-- refused.
CREATE TABLE sw (p TEXT, id INT, v INT);
INSERT INTO sw VALUES ('a', 1, 10), ('a', 2, NULL), ('b', 3, 30), ('b', 4, 40), ('b', 5, 35);
SELECT id, (SELECT max(n) FROM k) AS m, sum(v) OVER (PARTITION BY p ORDER BY id), (SELECT count(*) FROM k WHERE n < sw.id) FROM sw;
SELECT id, sum(v) OVER (PARTITION BY p ORDER BY id) + (SELECT min(n) FROM k), row_number() OVER (ORDER BY id) FROM sw WHERE id > (SELECT min(n) FROM k);
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY p ORDER BY v DESC NULLS LAST) AS r FROM sw WHERE id > (SELECT min(n) FROM k)) s WHERE r <= 1;
SELECT id, count(*) OVER (PARTITION BY (SELECT max(n) FROM k) > id ORDER BY id) FROM sw;
-- sluice: error A subquery in a rolling window aggregate is not supported yet
SELECT k, sum(v + (SELECT min(n) FROM k)) OVER (ORDER BY k RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM rk;
INSERT INTO k VALUES (2);
DELETE FROM sw WHERE id = 1;
UPDATE k SET n = 0 WHERE n = 1;
UPDATE sw SET v = 50 WHERE id = 3;
