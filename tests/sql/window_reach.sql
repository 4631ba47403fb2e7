-- Window functions whose change reaches only the rows near it: LAG and LEAD
-- by a constant offset, and aggregates, FIRST_VALUE, LAST_VALUE and
-- NTH_VALUE over ROWS frames with offsets. A change recomputes only those
-- rows (OverOp's bounded path); here changes land at the start, in the middle
-- and at the end of partitions, several in one step, over duplicate rows,
-- NULL order keys and descending orders, in partitions that appear and
-- vanish. Orders are total but for identical rows, so PostgreSQL's answer is
-- the only one; and one window per query, since the next window of a query
-- orders identical rows by the previous window's values.
CREATE TABLE r (p INT, k INT, v INT);
INSERT INTO r SELECT g % 3, g, (g * 37) % 101 FROM generate_series(1, 90) g;
-- At the end of a partition, at its start, in its middle.
INSERT INTO r VALUES (0, 200, 5);
INSERT INTO r VALUES (1, -5, 7);
INSERT INTO r VALUES (2, 44, 9);
-- Several in one step, near each other and far apart.
INSERT INTO r VALUES (0, 10, 1), (0, 11, 2), (0, 13, 3), (0, 70, 4), (1, 0, 8), (2, 1000, NULL);
DELETE FROM r WHERE k IN (3, 6, 9, 48, 87);
DELETE FROM r WHERE p = 1 AND k < 20;
UPDATE r SET v = v + 1000 WHERE k IN (30, 31, 60, 90);
UPDATE r SET k = k + 1 WHERE k = 45;
-- Duplicates: identical rows, added and removed one copy at a time.
INSERT INTO r VALUES (0, 33, 9), (0, 33, 9), (0, 33, 9);
INSERT INTO r VALUES (0, 33, 9), (2, 50, 1), (2, 50, 1);
DELETE FROM r WHERE k = 50;
-- NULL order keys, and a partition that appears.
INSERT INTO r VALUES (0, NULL, 11), (0, NULL, 12), (3, 1, 1), (3, 2, 2), (NULL, 5, 5);
INSERT INTO r VALUES (0, NULL, 13), (3, 3, 3);
SELECT p, k, v, lag(v) OVER w, lead(v) OVER w, lag(v, 2, -1) OVER w, lead(v, 3, k) OVER w, lag(v, 0) OVER w FROM r WINDOW w AS (PARTITION BY p ORDER BY k, v);
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM r;
SELECT p, k, v, count(*) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM r;
SELECT p, k, v, avg(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM r;
SELECT p, k, v, min(v) OVER w3, max(v) OVER w3, first_value(v) OVER w3, last_value(v) OVER w3, nth_value(v, 2) OVER w3 FROM r WINDOW w3 AS (PARTITION BY p ORDER BY k DESC NULLS LAST, v ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING);
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k NULLS FIRST, v ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING) FROM r;
SELECT p, k, v, sum(v) OVER w, count(v) OVER (w ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM r WINDOW w AS (PARTITION BY p ORDER BY k, v ROWS BETWEEN 4 PRECEDING AND 2 PRECEDING);
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM r;
SELECT p, k, v, lag(k, 1) OVER (ORDER BY p, k, v) FROM r;
-- EXCLUDE GROUP and TIES need the peers within the frame: order by k
-- alone, where peers are identical rows.
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE GROUP) FROM r WHERE k = 33 OR k % 5 <> 0;
SELECT p, k, v, count(*) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM r WHERE k = 33 OR k % 5 <> 0;
-- The partition that appeared vanishes; more changes at both ends.
DELETE FROM r WHERE p = 3;
DELETE FROM r WHERE p = 0 AND (k IS NULL OR k > 150);
INSERT INTO r VALUES (1, -100, 1), (1, -99, 2), (1, 500, 3), (1, 501, NULL), (1, 502, 4);
UPDATE r SET v = NULL WHERE p = 2 AND k BETWEEN 20 AND 40;
DELETE FROM r WHERE k = 33 AND p = 0;
INSERT INTO r VALUES (0, 33, 9);
SELECT p, k, v, lag(v) OVER w, lead(v) OVER w, lag(v, 2, -1) OVER w, lead(v, 3, k) OVER w FROM r WINDOW w AS (PARTITION BY p ORDER BY k, v);
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM r;
SELECT p, k, v, count(*) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM r;
SELECT p, k, v, avg(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM r;
SELECT p, k, v, min(v) OVER w3, max(v) OVER w3, first_value(v) OVER w3, last_value(v) OVER w3, nth_value(v, 2) OVER w3 FROM r WINDOW w3 AS (PARTITION BY p ORDER BY k DESC NULLS LAST, v ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING);
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k, v ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM r;
SELECT p, k, v, lag(k, 1) OVER (ORDER BY p, k, v) FROM r;
SELECT p, k, v, sum(v) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE GROUP) FROM r WHERE k = 33 OR k % 5 <> 0;
SELECT p, k, v, count(*) OVER (PARTITION BY p ORDER BY k ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM r WHERE k = 33 OR k % 5 <> 0;
-- A bounded function beside a running one: whole partitions again.
SELECT p, k, v, lag(v) OVER w, sum(v) OVER w, row_number() OVER w FROM r WINDOW w AS (PARTITION BY p ORDER BY k, v);
