-- Math functions and operators; exact decimals where PostgreSQL's result
-- scale is known from the query.
CREATE TABLE m (k INT, c DECIMAL(10,3), n INT, d DOUBLE PRECISION);
INSERT INTO m VALUES (1, 12.345, 3, 0.5), (2, -1.005, -2, -2.25), (3, 0.5, 0, 1e-5);
INSERT INTO m VALUES (4, 99.999, 10, 100), (5, NULL, NULL, NULL);
DELETE FROM m WHERE k = 3;
INSERT INTO m VALUES (6, 0.001, 7, 3.75);

SELECT k, round(c, 1), round(c, 0), round(c, -1), trunc(c, 1), trunc(c, -1), trunc(c) FROM m;
SELECT k, div(c, 0.3), scale(c), min_scale(c), trim_scale(c), gcd(n, 4), lcm(n, 4) FROM m WHERE n <> 0;
SELECT k, |/ abs(d), sin(d), cos(d), atan2(d, 2), degrees(d), radians(d), cbrt(d) FROM m;
SELECT k, sinh(d), cosh(d), tanh(d), asinh(d), log(abs(d) + 1) FROM m;
SELECT k, width_bucket(d, 0, 100, 4), trunc(d), 2 ^ n FROM m;
SELECT chr(65), ascii('A'), pi(), factorial(5), factorial(20), cbrt(27.0), 2 ^ 10, |/ 16.0, @ -5;
SELECT 1e-5 * 3, 1.5e3, 2.50e1, 1e10;

-- sluice: error cannot take logarithm of zero
SELECT log(0.0) FROM m;
-- Trigonometry in degrees, exact at the special angles as PostgreSQL's.
SELECT x, sind(x), cosd(x), tand(x), cotd(x) FROM (VALUES (0), (30), (45), (60), (90), (135), (180), (225), (270), (-30), (390), (17)) v(x);
SELECT x, asind(x), acosd(x), atand(x), atan2d(x, 1) FROM (VALUES (-1::float8), (-0.5), (0), (0.5), (1), (0.3)) v(x);
-- sluice: error input is out of range
SELECT asind(2);
-- extra_float_digits below 1: 15 (DOUBLE) or 6 (REAL) digits plus it.
SET extra_float_digits = 0;
SELECT 0.1::float8 + 0.2::float8, '1e100'::float8, 1.0::float8 / 3, 3.14159265358979::float4, 1e-5::float8;
SET extra_float_digits = -3;
SELECT 0.1::float8 + 0.2::float8, 2.0::float8 / 3, 1234567.0::float4;
RESET extra_float_digits;
SELECT 0.1::float8 + 0.2::float8;
-- NaN's rules in division and power; REAL read straight to single precision.
SELECT 'nan'::float8 / 0, 'nan'::float4 / '0'::float4, power(float8 '-1', float8 'NaN'), power(float8 'NaN', 0), power(1::float8, float8 'NaN'), power(float8 'NaN', 2);
SELECT float4send('7038531e-32'::float4), float4send('82381273e-35'::float4), '1.17549435e-38'::float4;
-- sluice: error division by zero
SELECT 1::float8 / 0;
-- The integer bitwise operators, at each type's width.
CREATE TABLE bits (id INT, s SMALLINT, i INT, b BIGINT);
INSERT INTO bits VALUES (1, 1, 1, 1), (2, -1, -8, -8), (3, 255, 12345, 9223372036854775807), (4, NULL, 0, NULL);
SELECT id, s << 15, s >> 1, i << 31, i >> 2, b << 63, b >> 60, i & 6, i | 3, i # 5, ~i, ~b, s & i, i & b, i << 33 FROM bits;
UPDATE bits SET i = i + 100 WHERE id = 2;
DELETE FROM bits WHERE id = 1;
SELECT 1::int2 << 15, 7 & 3, 5 | 2, 5 # 1, ~5, -8 >> 1, 1 << 33, 1::int8 << 63;
-- Casts called as functions of their types' names.
SELECT float8(count(*)) / 3, int4(7.6), int8('12'), numeric(1.5::float8), text(12), bool('t'), int2(3.5), float4(1) FROM bits;
-- PostgreSQL's float statistics transition functions, callable by name
SELECT float8_accum('{4,140,2900}'::float8[], 100);
SELECT float8_regr_accum('{4,140,2900,1290,83075,15050}'::float8[], 200, 100);
SELECT float8_combine('{3,60,200}'::float8[], '{0,0,0}'::float8[]);
SELECT float8_combine('{0,0,0}'::float8[], '{2,180,200}'::float8[]);
SELECT float8_combine('{3,60,200}'::float8[], '{2,180,200}'::float8[]);
SELECT float8_regr_combine('{3,60,200,750,20000,2000}'::float8[], '{0,0,0,0,0,0}'::float8[]);
SELECT float8_regr_combine('{0,0,0,0,0,0}'::float8[], '{2,180,200,740,57800,-3400}'::float8[]);
SELECT float8_regr_combine('{3,60,200,750,20000,2000}'::float8[], '{2,180,200,740,57800,-3400}'::float8[]);
SELECT float8_accum('{4,140}'::float8[], 100);
SELECT float8_accum('{0,0,0}'::float8[], 'inf');
-- scale functions of integers; gcd and lcm of numerics
SELECT scale(0), min_scale(10), trim_scale(42);
SELECT a, b, gcd(a, b), gcd(a, -b), gcd(-b, a), gcd(-b, -a)
FROM (VALUES (0::numeric, 0::numeric), (0::numeric, numeric 'NaN'), (0::numeric, 46375::numeric),
             (433125::numeric, 46375::numeric), (43312.5::numeric, 4637.5::numeric),
             (4331.250::numeric, 463.75000::numeric), ('inf', '0'), ('inf', '42'), ('inf', 'inf')) AS v(a, b);
SELECT a,b, lcm(a, b), lcm(a, -b), lcm(-b, a), lcm(-b, -a)
FROM (VALUES (0::numeric, 0::numeric), (0::numeric, numeric 'NaN'), (0::numeric, 13272::numeric),
             (13272::numeric, 13272::numeric), (423282::numeric, 13272::numeric), (42328.2::numeric, 1327.2::numeric),
             (4232.820::numeric, 132.72000::numeric), ('inf', '0'), ('inf', '42'), ('inf', 'inf')) AS v(a, b);
SELECT gcd(12, 18.5), lcm(4::bigint, 0.5);
-- A float result that leaves the type's range fails as PostgreSQL's does: an
-- infinity from finite values overflows, a zero from values that cannot give
-- zero underflows. A REAL checks its own, narrower range.
SELECT 0::float8 * 1e-300::float8, 1e-300::float8 / 'inf'::float8, exp('-inf'::float8), power(2::float8, '-inf'::float8);
-- sluice: error value out of range: underflow
SELECT 1e-200::float8 * d * 1e-200::float8 FROM m WHERE k = 1;
-- sluice: error value out of range: underflow
SELECT 1e-300::float8 / (d * 1e300::float8) FROM m WHERE k = 1;
-- sluice: error value out of range: underflow
SELECT exp(d - 1000) FROM m WHERE k = 1;
-- sluice: error value out of range: underflow
SELECT power(d * -1e-300::float8, 3::float8) FROM m WHERE k = 1;
-- sluice: error value out of range: underflow
SELECT (d * 1e-30)::float4 * 1e-30::float4 FROM m WHERE k = 1;
-- sluice: error value out of range: overflow
SELECT (d * 1e30)::float4 * 1e30::float4 FROM m WHERE k = 4;
