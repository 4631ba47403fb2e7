-- PostgreSQL's statistical aggregates: the variance family over integers,
-- numerics and floats, and the statistics of pairs of doubles (covariance,
-- correlation, regression), grouped and over windows, as rows come, change
-- and go. Numeric results have PostgreSQL's scale, which follows their
-- size; grouped doubles keep values whose sums PostgreSQL's running
-- accumulation computes without rounding.
CREATE TABLE s (k INT PRIMARY KEY, g INT, i INT, b BIGINT, sm SMALLINT, n NUMERIC(10,2), n4 NUMERIC(12,4),
  d DOUBLE PRECISION, r REAL, y DOUBLE PRECISION, x DOUBLE PRECISION, t TEXT);
INSERT INTO s VALUES
  (1, 1, 5, 10, 3, 1000.25, 1.5, 0.5, 1.5, 2, 1, 'a'),
  (2, 1, 6, 20, 4, 1002.50, 2.25, 1.5, 2.5, 4.5, 2, 'b'),
  (3, 2, 3, 30, 5, 1003.33, 7.125, 2.5, 0.25, 5, 3, 'c'),
  (4, 2, 9, 40, 6, 1001.01, 4.0625, 4.5, 4, 3, 4, 'd'),
  (5, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 7, NULL, 'e'),
  (6, 3, 7, 70, 7, 1005.55, 3.5, 7.5, 3, NULL, 5, 'f'),
  (7, 1, 8, 81, 9, 1000.00, 0.0001, 2.5, 1, 8, 6, 'g');

-- Over no rows, one row and many; NULLs are skipped.
SELECT var_pop(i), var_samp(i), stddev_pop(d), stddev_samp(d), variance(d), regr_count(y, x), regr_sxx(y, x),
  covar_pop(y, x), corr(y, x) FROM s WHERE k < 0;
SELECT var_samp(i), stddev_samp(n), var_pop(d), var_samp(d), stddev_pop(r), covar_pop(y, x), covar_samp(y, x),
  regr_count(y, x), regr_avgx(y, x), regr_avgy(y, x), regr_sxx(y, x), regr_slope(y, x), regr_r2(y, x), corr(y, x)
FROM s WHERE k = 1;
SELECT var_pop(i), var_samp(i), stddev_pop(i), stddev_samp(i), variance(i), stddev(i) FROM s;
SELECT var_pop(b), var_samp(b), stddev_pop(b), stddev_samp(b), var_samp(sm), stddev_pop(sm) FROM s;
SELECT var_pop(n), var_samp(n), stddev_pop(n), stddev_samp(n), var_samp(n4), stddev_samp(n4) FROM s;
SELECT regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM s;
SELECT regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), covar_pop(y, x), covar_samp(y, x), corr(y, x) FROM s;
-- Integer and real arguments of the pair statistics are double precision.
SELECT regr_count(i, sm), regr_avgy(i, sm), covar_samp(b, r), regr_avgx(d, i) FROM s;

-- GROUP BY, with FILTER.
SELECT g, var_pop(i), var_samp(i), stddev_pop(i), stddev_samp(i), variance(b), stddev(b), var_samp(n), stddev_samp(n)
FROM s GROUP BY g HAVING count(i) > 1;
SELECT g, var_samp(i), stddev_samp(b) FROM s GROUP BY g;
SELECT g, var_samp(i) FILTER (WHERE k <> 2), regr_count(y, x) FILTER (WHERE x > 1), regr_count(y, x) FROM s GROUP BY g;

-- Grouped doubles: the values of f keep PostgreSQL's running sums exact at
-- every step below, so its digits and the exact ones agree.
CREATE TABLE f (k INT PRIMARY KEY, g INT, d DOUBLE PRECISION, y DOUBLE PRECISION, x DOUBLE PRECISION);
INSERT INTO f VALUES (1, 3, 9, 7, 0.5), (2, 3, 12, 2, 2), (3, 2, 4, 0.5, -1), (4, 1, 12, -2, -1), (5, 1, 1.5, 0.5, 7),
  (6, 1, 9, 7, 1.5), (7, 1, -2, 4, 2), (8, 3, 9, 10, -1);
SELECT var_pop(d), var_samp(d), stddev_pop(d), stddev_samp(d), regr_count(y, x), regr_sxx(y, x), regr_syy(y, x),
  regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x), regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x),
  covar_pop(y, x), covar_samp(y, x), corr(y, x) FROM f;
SELECT g, var_pop(d), var_samp(d), stddev_pop(d), stddev_samp(d), regr_count(y, x), regr_sxx(y, x), regr_syy(y, x),
  regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM f GROUP BY g;
SELECT g, regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), covar_pop(y, x), covar_samp(y, x), corr(y, x)
FROM f GROUP BY g;

-- Lines: corr and regr_slope are NULL for a vertical line, regr_r2 is 1
-- for a horizontal one; infinities and NaN.
CREATE TABLE p (k INT PRIMARY KEY, g INT, y DOUBLE PRECISION, x DOUBLE PRECISION);
INSERT INTO p VALUES (1, 1, 1, 5), (2, 1, 2, 5), (3, 1, 3, 5), (4, 2, 7, 1), (5, 2, 7, 2), (6, 2, 7, 3),
  (7, 3, 'Infinity', 1), (8, 3, 2, 3), (9, 4, 'NaN', 1), (10, 4, 1, 2), (11, 5, '-Infinity', 1);
SELECT g, regr_count(y, x), regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), corr(y, x), regr_sxx(y, x),
  regr_syy(y, x), regr_avgy(y, x), covar_pop(y, x) FROM p GROUP BY g;
SELECT g, var_pop(y), var_samp(y), stddev_pop(x) FROM p GROUP BY g;

-- Window functions: whole partitions, running frames, sliding frames.
SELECT k, var_samp(b) OVER (ORDER BY k ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
  stddev_pop(d) OVER (PARTITION BY g), regr_slope(y, x) OVER (ORDER BY k),
  corr(y, x) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM s;
SELECT k, variance(d) OVER w, stddev(r) OVER w, covar_samp(y, x) OVER w, regr_intercept(y, x) OVER w,
  regr_count(y, x) OVER w, regr_avgy(y, x) OVER w
FROM s WINDOW w AS (ORDER BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING);
SELECT k, var_samp(b) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
  var_samp(n) OVER (PARTITION BY g ORDER BY k), stddev_samp(b) OVER (ORDER BY k GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM s;
SELECT i, var_pop(n::float8) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
  regr_sxx(n::float8, i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)
FROM (VALUES (1, 600), (2, 470), (3, 170), (4, 430), (5, 300)) v(i, n);

-- Bad input.
-- sluice: error function var_pop(text) does not exist
SELECT var_pop(t) FROM s;
-- sluice: error function corr(text, double precision) does not exist
SELECT corr(t, x) FROM s;
-- sluice: error function regr_slope takes two arguments
SELECT regr_slope(y) FROM s;
-- sluice: error var_pop(DISTINCT ...) is not supported yet
SELECT var_pop(DISTINCT i) FROM s;
-- Large values: PostgreSQL's scale follows the variance's size (here none
-- after the point).
SELECT var_pop(b * 100000000000000000), stddev_samp(b * 100000000000000000) FROM s;
-- Sums of squares of 38 digits and more are kept exact (as PostgreSQL's
-- numeric has no such limit), and return to 128 bits when they fit again.
SELECT var_pop(n * 100000000000000000000), stddev_samp(n * 100000000000000000000) FROM s;
SELECT g, variance(b * 1000000000000000000), stddev_pop(b::numeric * 123456789012345678901234.5)
FROM s GROUP BY g;
CREATE TABLE big (k INT PRIMARY KEY, g INT, b BIGINT, n NUMERIC(40, 3), m NUMERIC);
INSERT INTO big VALUES
  (1, 1, 9000000000000000000, 123456789012345678901234567890.125, 1e30),
  (2, 1, 9100000000000000000, 1.5, 2.5e25),
  (3, 2, -9200000000000000000, -98765432109876543210987654321.5, 0.000001),
  (4, 2, 1, 7, 12345678901234567890123.4567);
SELECT g, var_samp(b), stddev_samp(b), var_pop(n), stddev_pop(n), variance(m), stddev(m)
FROM big GROUP BY g;
SELECT var_samp(b), stddev(b), var_pop(n), stddev_samp(n), var_samp(m), stddev_pop(m) FROM big;

-- Changes: updates, deletes and inserts over several steps.
UPDATE s SET d = d + 1, i = i * 2, y = y + 0.5 WHERE k = 2;
UPDATE f SET d = d + 1, y = y + 0.5 WHERE k = 2;
DELETE FROM s WHERE k = 7;
DELETE FROM f WHERE k = 7;
INSERT INTO s VALUES (8, 3, 2, 5, 8, 1009.11, 6.5, 9.5, 2, 1, 7, 'h'), (9, 2, 4, 44, 2, 1004.02, 8.25, 1, 0.5, 6, 8, 'i');
-- The large values leave (the sums fit 128 bits again) and come back.
DELETE FROM big WHERE k IN (1, 3);
UPDATE big SET m = 2.5 WHERE k = 2;
INSERT INTO big VALUES (5, 1, 9223372036854775807, 9999999999999999999999999999999999999.999, 1e-6),
  (6, 2, -9223372036854775807, 0.001, 1e37);
DELETE FROM big WHERE k = 5;
INSERT INTO f VALUES (9, 2, 2.5, 9, 10), (10, 3, 2, 6, 2);
UPDATE s SET g = 1, n = n + 2 WHERE k = 3;
UPDATE f SET g = 1 WHERE k = 3;
DELETE FROM s WHERE k = 1;
DELETE FROM f WHERE k = 1;
SELECT g, var_pop(i), var_samp(i), stddev_samp(b), var_samp(n), stddev_pop(n4) FROM s GROUP BY g;
SELECT g, var_pop(d), var_samp(d), stddev_samp(d), regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x),
  covar_pop(y, x), covar_samp(y, x), corr(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x)
FROM f GROUP BY g;
SELECT var_pop(d), var_samp(d), stddev_pop(d), regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x),
  regr_avgx(y, x), regr_avgy(y, x), regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), covar_pop(y, x),
  covar_samp(y, x), corr(y, x) FROM f;
SELECT k, stddev_samp(d) OVER (ORDER BY k), regr_r2(y, x) OVER (ORDER BY k ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
  var_samp(i) OVER (PARTITION BY g) FROM s;
DELETE FROM s WHERE g = 2;
SELECT g, var_samp(i), stddev_samp(b), regr_count(y, x) FROM s GROUP BY g;
SELECT var_samp(i), var_pop(b) FROM s;
-- Running sums that overflow.
-- sluice: error value out of range: overflow
SELECT var_pop(d) OVER (ORDER BY k) FROM (VALUES (1, '1e308'::float8), (2, '1e308'::float8)) v(k, d);
-- sluice: error value out of range: overflow
SELECT var_pop(d) FROM (VALUES (1, '1e308'::float8), (2, '1e308'::float8)) v(k, d);
