-- NUMERIC's special values NaN, Infinity and -Infinity (PostgreSQL 14+):
-- input in every spelling, order (NaN above everything, NaN = NaN),
-- arithmetic, functions, casts, and aggregates over inserts, updates and
-- deletes. A numeric(p,s) column holds NaN but no infinity; the
-- unconstrained numeric holds all three. Finite values of the unconstrained
-- column are compared as float8 here, since Sluice gives that column a
-- fixed scale where PostgreSQL keeps each value's own.
CREATE TABLE s (k INT, c NUMERIC(10,2), u NUMERIC);
INSERT INTO s VALUES (1, 1.50, 'Infinity'), (2, 'NaN', '-Infinity'), (3, -2.25, 'NaN');
INSERT INTO s VALUES (4, 10.00, 'inf'), (5, NULL, '-inf'), (6, 0, 2.5), (7, 'nan', 'NAN');
UPDATE s SET c = 'NaN' WHERE k = 1;
DELETE FROM s WHERE k = 4;
INSERT INTO s VALUES (8, 3.00, '+inf'), (9, -1.00, ' Infinity ');
UPDATE s SET u = 1.25 WHERE k = 9;

SELECT k, c, u::float8 FROM s;
SELECT k, u::float8, u = 'NaN'::numeric, u > 1000, u < -1000, u = 'Infinity'::numeric FROM s;
SELECT k FROM s WHERE c = 'NaN';
SELECT k, c FROM s ORDER BY c LIMIT 4;
SELECT k, u::float8 FROM s ORDER BY u DESC, k LIMIT 3;
SELECT min(c), max(c), count(c) FROM s;
SELECT max(u)::float8, min(u)::float8 FROM s;
SELECT k, (u + 1)::float8, (u - u)::float8, (u * 0)::float8, (u * -2)::float8, (-u)::float8, abs(u)::float8 FROM s;
SELECT k, (c + 1), (c * 2), (c - c), -c, abs(c), sign(c) FROM s;
SELECT k, (u / 2)::float8, sign(u)::float8, round(u)::float8, trunc(u)::float8, ceil(u)::float8, floor(u)::float8 FROM s;
SELECT k, scale(u), min_scale(c), trim_scale(c) FROM s WHERE k IN (1, 2, 3, 7);
SELECT k, c::float8, u::float4, c::text FROM s;
SELECT k, u::text FROM s WHERE u IN ('NaN', 'Infinity', '-Infinity');
SELECT k, (u % 3)::float8 FROM s WHERE u <> 'Infinity' AND u <> '-Infinity';
SELECT k, (5 % u)::float8 FROM s WHERE u = 'Infinity' OR u = '-Infinity';
SELECT 'NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric, 'inf'::numeric + 1, 'nan'::numeric * 0;
SELECT 'Infinity'::numeric - 'Infinity'::numeric, 'Infinity'::numeric + '-Infinity'::numeric, 'Infinity'::numeric * 0;
SELECT 'Infinity'::numeric / 'Infinity'::numeric, 'NaN'::numeric / 0, '-inf'::numeric / 2, 'Infinity'::numeric % 3;
SELECT 'NaN'::float8::numeric, 'Infinity'::float8::numeric, '-Infinity'::float4::numeric, 'NaN'::numeric::float8;
SELECT 'NaN'::numeric = 'NaN'::numeric, 'NaN'::numeric > 'Infinity'::numeric, '-Infinity'::numeric < -1e20;
-- An untyped constant beside a numeric is numeric (power(numeric, text)
-- is not an overload).
SELECT power('inf'::numeric, '-2'), power('-inf'::numeric, '3'), power('-inf'::numeric, '0');

-- Aggregates: one NaN makes the sum NaN; both infinities make it NaN; an
-- infinity alone makes it infinite; the statistics are NaN.
CREATE TABLE a (g INT, v NUMERIC);
INSERT INTO a VALUES (1, 1.5), (1, 'Infinity'), (2, 2), (2, 'NaN'), (3, 'Infinity'), (3, '-Infinity');
INSERT INTO a VALUES (4, 1), (4, 3), (5, '-Infinity'), (5, 7);
SELECT g, sum(v)::float8, avg(v)::float8, count(v) FROM a GROUP BY g;
SELECT g, variance(v)::float8, stddev(v)::float8 > 1 FROM a GROUP BY g;
DELETE FROM a WHERE v = 'NaN';
UPDATE a SET v = 10 WHERE g = 3 AND v = '-Infinity';
SELECT g, sum(v)::float8, avg(v)::float8, max(v)::float8, min(v)::float8 FROM a GROUP BY g;
SELECT g, v::float8, sum(v) OVER (PARTITION BY g ORDER BY v)::float8 FROM a;
CREATE TABLE b (g INT, v NUMERIC(10,2));
INSERT INTO b VALUES (1, 1.25), (1, 'NaN'), (2, 2.50), (2, 0.25);
SELECT g, sum(v), avg(v)::float8, var_pop(v), stddev_samp(v) FROM b GROUP BY g;
DELETE FROM b WHERE v = 'NaN';
SELECT g, sum(v), avg(v)::float8 FROM b GROUP BY g;

-- sluice: error numeric field overflow
SELECT 'Infinity'::numeric(10,2);
-- sluice: error cannot convert NaN to integer
SELECT 'NaN'::numeric::int;
-- sluice: error cannot convert infinity to bigint
SELECT '-inf'::numeric::bigint;
-- sluice: error division by zero
SELECT 'Infinity'::numeric / 0;

-- RANGE frames over floats and numerics with infinities and NaN, as
-- PostgreSQL's in_range has them: NaN is only near NaN, and an infinite
-- offset from an infinite key reaches every row.
CREATE TABLE r (id INT, f FLOAT8, n NUMERIC);
INSERT INTO r VALUES (0, '-infinity', '-infinity'), (1, -3, -3), (2, -1, -1), (3, 0, 0), (4, 1.1, 1.1);
INSERT INTO r VALUES (5, 1.12, 1.12), (6, 2, 2), (7, 100, 100), (8, 'infinity', 'infinity'), (9, 'NaN', 'NaN');
SELECT id, f, first_value(id) OVER w, last_value(id) OVER w FROM r WINDOW w AS (ORDER BY f RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING);
SELECT id, f, first_value(id) OVER w, last_value(id) OVER w FROM r WINDOW w AS (ORDER BY f DESC RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING);
SELECT id, n::float8, first_value(id) OVER w, last_value(id) OVER w FROM r WINDOW w AS (ORDER BY n RANGE BETWEEN 1 PRECEDING AND 1.1 FOLLOWING);
SELECT id, n::float8, first_value(id) OVER w, last_value(id) OVER w FROM r WINDOW w AS (ORDER BY n RANGE BETWEEN 'inf' PRECEDING AND 'inf' FOLLOWING);
SELECT id, n::float8, first_value(id) OVER w, last_value(id) OVER w FROM r WINDOW w AS (ORDER BY n RANGE BETWEEN 'inf' PRECEDING AND 'inf' PRECEDING);
SELECT id, n::float8, count(*) OVER w FROM r WINDOW w AS (ORDER BY n DESC RANGE BETWEEN 'inf' FOLLOWING AND 'inf' FOLLOWING);
DELETE FROM r WHERE id IN (0, 9);
UPDATE r SET n = 'NaN', f = 'NaN' WHERE id = 4;
SELECT id, n::float8, sum(n) OVER w::float8 FROM r WINDOW w AS (ORDER BY n RANGE BETWEEN 2 PRECEDING AND CURRENT ROW);
-- sluice: error invalid preceding or following size
SELECT id, sum(id) OVER (ORDER BY n RANGE BETWEEN 1.1 PRECEDING AND 'NaN' FOLLOWING) FROM r;
-- div, PostgreSQL's numeric_div_trunc.
SELECT div('NaN'::numeric, 2), div('Infinity'::numeric, -3), div(5::numeric, 'Infinity'::numeric), div('-Infinity'::numeric, 'Infinity'::numeric);
-- sluice: error division by zero
SELECT div('Infinity'::numeric, 0);
