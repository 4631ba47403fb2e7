-- PostgreSQL's unconstrained NUMERIC: each value keeps the scale it was
-- written with (1.50 stays 1.50, 3 stays 3), and results take PostgreSQL's
-- scale: the larger of the operands' for + and -, their sum for *, and for
-- /, AVG, sqrt and the variance family a scale that follows the size of
-- the result (at least 16 significant digits). Sums keep the largest scale
-- of the values summed, also when the value that had it is deleted.
CREATE TABLE m (k INT PRIMARY KEY, g INT, x NUMERIC, y NUMERIC, c DECIMAL(10,2), i INT);
INSERT INTO m VALUES (1, 1, 7, 3, 10.25, 7), (2, 1, 2.25, 0.001, 3.10, -4), (3, 2, 100, 7.0, 0.01, 0);
INSERT INTO m VALUES (4, 2, -0.5, 12.345, 99.99, 12), (5, 3, NULL, 1, NULL, NULL), (6, 3, 0.000, 2.50, 5.00, 3);
INSERT INTO m VALUES (7, 1, 1.5, 16900, 1.00, 1), (8, 4, 1e-3, 1.5e3, 2.5, 5);
UPDATE m SET x = x * 2 WHERE k = 4;
DELETE FROM m WHERE k = 2;
INSERT INTO m VALUES (9, 1, 3.14159, 2, 7.77, 9);
DELETE FROM m WHERE k = 9;
UPDATE m SET y = 70.0 WHERE k = 3;
-- Values as written, and the operators' scales.
SELECT k, x, y, x + y, x - y, x * y, -x, abs(y) FROM m;
SELECT k, x / y, y / 3, 1 / y, x / 70, y / 70.0, 16900 / y FROM m WHERE y <> 0;
SELECT k, x % y, mod(y, 3), div(y, 3) FROM m WHERE y <> 0;
-- Aggregates: grouped, whole, over windows.
SELECT g, sum(x), avg(x), sum(y), avg(y), avg(c), avg(i), sum(c), min(y), max(x) FROM m GROUP BY g;
SELECT sum(x), avg(y), count(x), avg(c) FROM m;
SELECT g, var_pop(x), var_samp(y), stddev_pop(y), stddev_samp(i), variance(c) FROM m GROUP BY g;
SELECT k, sum(x) OVER (PARTITION BY g ORDER BY k), avg(y) OVER (PARTITION BY g), avg(i) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM m;
-- Functions.
SELECT k, round(x, 3), round(y, 1), round(y), trunc(y, 4), trunc(x), ceil(x), floor(y), sign(y) FROM m;
SELECT k, sqrt(abs(x)), sqrt(y), scale(y), trim_scale(y), min_scale(y) FROM m WHERE y >= 0;
SELECT k, exp(x), ln(y), log(y), log(2, y), power(y, 2), power(y, -1), y ^ 0.5, power(x, 3) FROM m WHERE y > 0 AND x < 10;
SELECT exp(1.0), exp(0.0), exp(-32.999), ln(2.0), ln(1.000001), log(1000.0), log(2.0, 64.0), 10.0 ^ -20, (-1.0) ^ 3, 32.1 ^ 9.8, power(2.5, 10);
SELECT exp('-Infinity'::numeric), exp('NaN'::numeric), ln('Infinity'::numeric), power('NaN'::numeric, 0), power(1, 'NaN'::numeric), power(0.5, '-Infinity'::numeric), power('-Infinity'::numeric, 3), sqrt('Infinity'::numeric);
-- sluice: error cannot take logarithm of zero
SELECT ln(0.0);
-- sluice: error cannot take logarithm of a negative number
SELECT log(10, -1.5);
-- sluice: error zero raised to a negative power is undefined
SELECT power(0.0, -2);
-- sluice: error a negative number raised to a non-integer power yields a complex result
SELECT power(-2.0, 0.5);
-- sluice: error cannot take square root of a negative number
SELECT sqrt(-0.01);
-- Casts to NUMERIC keep the value's own scale.
SELECT k, CAST(i AS NUMERIC), CAST(c AS NUMERIC), x::text, CAST('1.500' AS NUMERIC), '42'::int2::numeric FROM m;
SELECT 0.1::float8::numeric, 12.25::float8::numeric, 1e20::float8::numeric, 2.5::real::numeric, '1.5e3'::numeric, '1e-3'::numeric;
SELECT 12.25::float8::numeric(10,1), 74.85::float8::numeric(10,1), 0.125::float8::numeric(10,2), d::numeric(12,3) FROM (VALUES (1.0005::float8), (-2.25::float8)) v(d);
SELECT to_number('1.5', '9.99'), to_number(t, '999.999') FROM (VALUES ('12.5'), ('-3'), ('0.125')) v(t);
-- Expressions of several types: each value keeps its scale.
SELECT k, CASE WHEN k < 3 THEN x ELSE 2 END, COALESCE(x, 0), GREATEST(x, y), NULLIF(x, 7) FROM m;
SELECT x FROM m UNION ALL SELECT 2 FROM m WHERE k = 1;
SELECT * FROM (VALUES (1.1), (2), (3.25)) v(a);
-- Equal values of different scales are equal: they compare, join and
-- filter as one.
SELECT a.k, b.k, a.x, b.y FROM m a JOIN m b ON a.x = b.y;
SELECT k FROM m WHERE y = 70 OR x = 7.000;
SELECT k FROM m WHERE y IN (SELECT x FROM m);
SELECT k, x < y, x = y, x > 1.50 FROM m;
SELECT x FROM m ORDER BY x DESC NULLS LAST LIMIT 3;
-- generate_series of numerics.
SELECT * FROM generate_series(0.0::numeric, 4.0::numeric);
SELECT * FROM generate_series(0.1::numeric, 4.0, 1.3);
SELECT * FROM generate_series(1::numeric, 2, 0.25);
-- Bad input.
-- sluice: error invalid input syntax for type numeric
SELECT CAST('1.2.3' AS NUMERIC);
-- sluice: error division by zero
SELECT x / 0 FROM m;
