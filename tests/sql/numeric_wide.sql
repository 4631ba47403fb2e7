-- NUMERIC values beyond 38 digits (PostgreSQL's numeric has up to 131072
-- digits before the point and 16383 after it): in unconstrained NUMERIC
-- columns and in DECIMAL(p,s) columns of p > 38, through +, -, *, /, %,
-- comparisons, casts, round/trunc/ceil/floor, sqrt, factorial and
-- to_char, with values that fit 38 digits mixed in.
CREATE TABLE w (k INT PRIMARY KEY, g INT, x NUMERIC, y NUMERIC(210,10), z NUMERIC(12,2));
INSERT INTO w VALUES (1, 1, 123456789012345678901234567890123456789012345.678, 7, 1.25);
INSERT INTO w VALUES (2, 1, -0.00000000000000000000000000000000000000000000123, -99999999999999999999999999999999999999999999999.5, -3.50);
INSERT INTO w VALUES (3, 2, 5, 12345678901234567890123456789012345678901234567890.0123456789, 100);
INSERT INTO w VALUES (4, 2, 1e60, 0.00000000001, 0), (5, 3, NULL, NULL, NULL);
INSERT INTO w VALUES (6, 3, -98765432109876543210987654321098765432109876543210, 2, 7.77);
UPDATE w SET x = x * 1000000000000 WHERE k = 3;
DELETE FROM w WHERE k = 4;
INSERT INTO w VALUES (4, 2, 1e-60, 3e40, 0.01);
UPDATE w SET y = y + 1 WHERE k = 2;
SELECT k, x, y, z FROM w;
SELECT k, x + y, x - y, y - x, x * y, -x, abs(y), x + z FROM w;
SELECT k, x / 7, y / 3, 1 / x, x / y, y / 1e30 FROM w WHERE y <> 0 AND x <> 0;
SELECT k, x % 7, mod(y, 3), div(y, 7), div(x, 1e20) FROM w;
SELECT k, round(x), round(x, 2), round(y, -5), round(y, 45), trunc(x, 1), trunc(y, -20), ceil(x), floor(x), sign(x) FROM w;
SELECT k, sqrt(abs(x)), sqrt(abs(y)) FROM w;
SELECT k, scale(x), trim_scale(y), min_scale(y) FROM w;
SELECT k, x::float8, y::text, CAST(y AS NUMERIC(60,2)) FROM w WHERE k <> 4;
-- Comparisons, ordering, joins and grouping by wide values.
SELECT k FROM w WHERE x > 1e40;
SELECT k FROM w WHERE y < -1e30 OR y = 2;
SELECT k, x < y, x = y, y >= 12345678901234567890123456789012345678901234567890 FROM w;
SELECT x FROM w ORDER BY x DESC NULLS LAST LIMIT 3;
SELECT y FROM w ORDER BY y;
SELECT a.k, b.k FROM w a JOIN w b ON a.x * 2 = b.x + b.x;
SELECT y, count(*) FROM w GROUP BY y;
SELECT g, min(x), max(y) FROM w GROUP BY g;
-- Results beyond 38 digits of values that fit.
SELECT 99999999999999999999999999999999999999::numeric + 1, 1e30::numeric * 1e30, 2::numeric / 3 * 1e40, 10.0 ^ 2;
SELECT factorial(40), factorial(100);
SELECT 1234567890123456789012345678901234567890 / 0.0000001, (2^64)::numeric * (2^64)::numeric;
SELECT to_char(123456789012345678901234567890123456789012.5::numeric, 'FM999999999999999999999999999999999999999999999.00');
SELECT round(0.123456789012345678901234567890123456789012345678, 45), trunc(1e50::numeric + 0.5);
-- sluice: error numeric field overflow
SELECT CAST(1e50 AS NUMERIC(45,2));
-- sluice: error numeric field overflow
INSERT INTO w VALUES (9, 1, 0, 1e200, 0);
-- sluice: error division by zero
SELECT x / 0 FROM w;
-- exp, ln, log and power beyond 38 digits: exact to PostgreSQL's scale.
SELECT exp(100.0), exp(-100.0), ln(1e100), ln(0.349873948359354029493948309745709580730482050975), log(1.234567e-89);
SELECT k, ln(abs(y)), log(10, abs(y)), exp(y / 1e48) FROM w WHERE y <> 0;
SELECT power(2::numeric, 200), 1.000001 ^ 1000000.5, round(((1 - 1.500012345678e-1000) ^ 1.45e1003) * 1e1000), 10.0 ^ -2147483648;
SELECT factorial(1000) / factorial(998), sqrt(1e100 + 1);
