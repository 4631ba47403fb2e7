-- Aggregates beyond COUNT, SUM, AVG, MIN and MAX: BOOL_AND, EVERY and
-- BOOL_OR, grouped, global and over windows, as rows come, change and go.
CREATE TABLE b (k INT PRIMARY KEY, g INT, p BOOLEAN, q BOOLEAN, n NUMERIC(10,2));
INSERT INTO b VALUES (1, 1, TRUE, NULL, 1.5), (2, 1, FALSE, TRUE, NULL), (3, 2, NULL, FALSE, 2.25);
SELECT bool_and(p), bool_or(p), every(q), bool_and(NOT q), bool_or(q AND p) FROM b;
SELECT g, bool_and(p), bool_or(p), every(p), bool_or(q) FROM b GROUP BY g;
SELECT g FROM b GROUP BY g HAVING bool_or(p);
SELECT k, bool_and(p) OVER (ORDER BY k), bool_or(q) OVER (PARTITION BY g), every(p) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM b;
-- A sample's statistics over one value are NULL, even over an infinity.
SELECT var_samp(n), stddev_samp(n) FROM b WHERE k = 1;
INSERT INTO b VALUES (4, 2, TRUE, TRUE, 3), (5, 3, NULL, NULL, NULL);
UPDATE b SET p = TRUE WHERE k = 2;
DELETE FROM b WHERE k = 1;
SELECT bool_and(p), bool_or(p), every(q), bool_and(NOT q), bool_or(q AND p) FROM b;
SELECT g, bool_and(p), bool_or(p), every(p), bool_or(q) FROM b GROUP BY g;
SELECT k, bool_and(p) OVER (ORDER BY k), bool_or(q) OVER (PARTITION BY g), every(p) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM b;
SELECT var_samp(x), stddev_samp(x), var_pop(x), stddev_pop(x) FROM (VALUES ('inf'::numeric)) v(x);
SELECT var_samp(x), stddev_samp(x) FROM (VALUES ('nan'::numeric), (1)) v(x);
SELECT bool_and(NULL), bool_or(NULL) FROM b;
-- sluice: error function bool_and(integer) does not exist
SELECT bool_and(k) FROM b;
