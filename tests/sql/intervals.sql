-- Interval input in PostgreSQL's forms and output as PostgreSQL prints it
-- (IntervalStyle postgres); EXTRACT's fields.
SELECT interval '1 2:03' day to minute, interval '1 2:03:04' day to second, INTERVAL '-1 +02:03';
SELECT interval '999' hour, interval '1 day -1 hour', interval '-1 days +1 hour';
SELECT interval '1 years 2 months -3 days 4 hours 5 minutes 6.789 seconds';
SELECT interval '@ 1 hour 42 minutes', interval '@ 1 day 2 hours ago', interval '1.5 years', interval '1.5 months', interval '1.5 days';
SELECT interval 'P1Y2M3DT4H5M6S', interval 'PT1.5S', interval 'P0001-02-03T04:05:06', interval '1-2';
SELECT interval '2 decades 1 century', interval '1 millennium', interval '3 weeks', interval '100 msec 5 usec';
SELECT interval '-1 day -02:03:04', interval '00:00:00', interval '30 hours';

CREATE TABLE ts (k INT, t TIMESTAMP, d DATE);
INSERT INTO ts VALUES (1, '2020-05-26 13:30:25.575401', '2020-05-24'), (2, '1999-12-31 23:59:59', '2021-01-01');
INSERT INTO ts VALUES (3, '2001-01-01 00:00:00', '2000-02-29'), (4, NULL, NULL);
SELECT k, extract(century from t), extract(millennium from t), extract(decade from t), extract(year from t), extract(second from t) FROM ts;
SELECT k, extract(isodow from d), extract(dow from d), extract(week from d), extract(isoyear from d), extract(doy from d), extract(quarter from d) FROM ts;
SELECT k, date_part('decade', t), date_part('second', t), date_part('epoch', t), extract(epoch from t), extract(milliseconds from t) FROM ts;
SELECT k, t + interval '1 mon 2 days 03:04:05', t - interval '1.5 days' FROM ts;
SELECT extract(year from interval '2 years 3 months'), extract(month from interval '-14 months'), extract(day from interval '40 days'), extract(hour from interval '30 hours'), extract(minute from interval '1 hour 90 minutes'), extract(second from interval '65.5 seconds'), extract(epoch from interval '1 year 2 mons 3 days 04:05:06.5'), extract(century from interval '250 years'), date_part('epoch', interval '1 day');

-- Scaling, negation and justify_*; date_trunc's units in every spelling.
CREATE TABLE iv (id INT, i INTERVAL, f FLOAT8, n NUMERIC(10,3), t TIMESTAMP);
INSERT INTO iv VALUES (1, '1 mon 2 days 03:04:05', 1.5, 2.25, '1999-12-31 23:59:59.5'),
  (2, '-1 year 5 days -10:00:00', -0.3, 0.001, '0044-03-15 12:00:00 BC'),
  (3, '29 days 47:00:00', 3, -4.5, '2001-01-01 00:00:00'),
  (4, '1 mon -1 day', 0.7, 7, '1900-06-15 08:30:00');
SELECT id, i * f, i / f, f * i, i * n, i / 3, - i, i * 2 FROM iv;
SELECT id, justify_hours(i), justify_days(i), justify_interval(i) FROM iv;
SELECT id, date_trunc('century', t), date_trunc('millennium', t), date_trunc('decade', t),
  date_trunc('microseconds', t), date_trunc('hours', t), date_trunc('yrs', t) FROM iv;
-- sluice: error division by zero
SELECT i / 0 FROM iv;
UPDATE iv SET f = 0.25 WHERE id = 3;
INSERT INTO iv VALUES (5, '7 mons 15 days 12:00:00.123456', 1e-3, 1.001, '0001-01-01 00:00:00 BC');
DELETE FROM iv WHERE id = 1;

-- make_interval, by position or by name; the parameters left out are 0.
CREATE TABLE mk (k INT, y INT, d INT, s DOUBLE PRECISION);
INSERT INTO mk VALUES (1, 1, -7, 1.5), (2, 0, 0, 0), (3, NULL, 3, -25.3), (4, -2, 400, 7e12);
SELECT k, make_interval(y), make_interval(years => y, days => d), make_interval(days := d, secs := s), make_interval(y, 6, 5, d, 25, -180, s) FROM mk;
SELECT make_interval(), make_interval(years := 1, months := -1, weeks := 5, days := -7, hours := 25, mins := -180), make_interval(1, 2, days => 3);
-- sluice: error has no parameter named "foo"
SELECT make_interval(foo => 1);
-- sluice: error used more than once
SELECT make_interval(days => 1, days => 2);
UPDATE mk SET s = 0.000001 WHERE k = 2;
DELETE FROM mk WHERE k = 1;

-- Every input form PostgreSQL reads, at the limits of its fields.
SELECT interval '2562047788.01521550194 hours', interval '-2562047788.01521550222 hours';
SELECT interval '153722867280.912930117 minutes', interval '9223372036854775.807 milliseconds';
SELECT interval '9223372036854775807 microseconds', interval '-9223372036854775808 us';
SELECT interval '-2147483648 months -2147483648 days -9223372036854775808 us';
SELECT interval 'PT2562047788H54.775807S', interval 'PT-2562047788:00:54.775808', interval 'PT2562047788.0152155019444';
SELECT interval 'P0002', interval 'P00021015T103020', interval 'P0002-10-15T10:30:20', interval 'P1.1Y0M3DT4H5M6S', interval 'P.1Y0M3DT4H5M6S';
SELECT interval '4 millenniums 5 centuries 4 decades 1 year 4 months 4 days 17 minutes 31 seconds';
SELECT interval '100000000y 10mon -1000000000d -100000h -10min -10.000001s ago', interval '1 +2:03', interval '1 -2:03:04.5';
SELECT interval '0.7 seconds', interval '@ 0.70 secs', interval '.5 day', interval '1.75 weeks';
-- sluice: error invalid input syntax for type interval
SELECT interval '1 day 1 day';
-- sluice: error interval field value out of range
SELECT interval '9223372036854775808 microseconds';
-- sluice: error invalid input syntax for type interval
SELECT interval '1 hour 02:00';

-- Field restrictions and precisions, on constants and on columns.
SELECT interval '1 2' day to hour, interval '123 11' day to hour, interval '1 2:03' minute to second, interval '1 -2:03' minute to second;
SELECT interval(0) '1 day 01:23:45.6789', interval(2) '1 day 01:23:45.6789', interval '12:34.5678' minute to second(2), interval '1.234' second(2);
SELECT interval '1 2:03.4567' day to second(2), interval '1 2:03:04.5678' hour to second(2), interval '-1.5 hours' hour, interval '1-2' year to month, interval '14' month;
CREATE TABLE ivt (id INT, f INTERVAL);
INSERT INTO ivt VALUES (1, '1 day 02:03:04.5678'), (2, '-3 mons -00:00:01.5'), (3, '1 year 2 mons 3 days 04:05:06.789'), (4, NULL);
SELECT id, f::interval day to minute, f::interval hour, f::interval(1), CAST(f AS interval minute to second(3)), f::interval year FROM ivt;
UPDATE ivt SET f = f * 2 WHERE id = 2;
DELETE FROM ivt WHERE id = 1;
SELECT id, f::interval day to minute, f::interval(0) FROM ivt;

-- The four IntervalStyles (a client setting: values print as it says).
CREATE TABLE styles (id INT, f INTERVAL);
INSERT INTO styles VALUES (1, '0'), (2, '1 year 2 mons'), (3, '1 day 02:03:04'), (4, '-1 year -2 mons'),
  (5, '-1 day -02:03:04'), (6, '1 year 2 mons -3 days +04:05:06.789'), (7, '-00:00:00.1'), (8, '-23:45:12.34'),
  (9, '@ 1 day 2 hours ago'), (10, '1 mon -1 sec'), (11, '7 days'), (12, '-1 sec');
SET IntervalStyle TO sql_standard;
SELECT id, f FROM styles;
SET IntervalStyle TO iso_8601;
SELECT id, f FROM styles;
SET IntervalStyle TO postgres_verbose;
SELECT id, f, f * -1 FROM styles;
RESET IntervalStyle;
SELECT id, f FROM styles;
-- SUM and AVG of intervals: months, days and time summed apart; the
-- average carries fractions of months and days down, as PostgreSQL does.
CREATE TABLE spans (g INT, i INT, d INTERVAL);
INSERT INTO spans VALUES (1, 1, '1 mon 2 days 03:00'), (1, 2, '-2 days 1 hour'), (1, 3, '1 year 11 mons 1 sec'),
  (2, 1, '10 days'), (2, 2, NULL), (3, 1, NULL), (4, 1, '1 mon'), (4, 2, '1 day'), (4, 3, '00:00:00.000001');
SELECT g, sum(d), avg(d), count(d) FROM spans GROUP BY g;
SELECT sum(d), avg(d) FROM spans;
SELECT sum(d) FILTER (WHERE i > 1), avg(d) FILTER (WHERE g = 4) FROM spans;
SELECT g, i, sum(d) OVER (PARTITION BY g ORDER BY i), avg(d) OVER (PARTITION BY g ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM spans;
UPDATE spans SET d = d * 3 WHERE i = 2;
DELETE FROM spans WHERE g = 1 AND i = 1;
INSERT INTO spans VALUES (5, 1, '1 mon'), (5, 2, '1 mon'), (5, 3, '2 mon');
SELECT g, sum(d), avg(d) FROM spans GROUP BY g;
-- In IntervalStyle sql_standard, a leading sign applies to every field
-- when no other field has one, in constants and in text cast in a view.
SET IntervalStyle TO sql_standard;
SELECT interval '-23 hours 45 min 12.34 sec', interval '-1 day 23 hours 45 min 12.34 sec', interval '-1 year 2 months 1 day 23 hours 45 min 12.34 sec', interval '-1 year 2 months 1 day 23 hours 45 min +12.34 sec';
SELECT interval '-1 2:03:04', interval '-1-2 3 4:05:06', interval '1 day -2 hours';
CREATE TABLE interval_texts (k INT, s TEXT);
INSERT INTO interval_texts VALUES (1, '-1 2:03:04'), (2, '-3 days 4 hours');
SELECT k, s::interval FROM interval_texts;
INSERT INTO interval_texts VALUES (3, '5 days -1 hours'), (4, '-2 years 3 months');
DELETE FROM interval_texts WHERE k = 1;
SELECT k, s::interval FROM interval_texts;
SET IntervalStyle TO postgres;
SELECT interval '-1 2:03:04', interval '-23 hours 45 min';

-- date_trunc(unit, interval): the fields below the unit zeroed, each field
-- keeping its sign.
SELECT date_trunc('hour', interval '1 year 2 mons 3 days 04:05:06.789'), date_trunc('quarter', interval '1 year 5 mons 3 days'), date_trunc('decade', interval '27 years 11 mons');
SELECT date_trunc('century', interval '-1234 years -7 mons'), date_trunc('millennium', interval '2999 years'), date_trunc('milliseconds', interval '1.234567 seconds'), date_trunc('microseconds', interval '1.234567 seconds');
CREATE TABLE spans_dt (k INT, u TEXT, i INTERVAL);
INSERT INTO spans_dt VALUES (1, 'year', '3 years 4 mons 5 days'), (2, 'month', '-1 year -2 mons -3 days -04:00:00'), (3, 'day', '45 days 12:30:00'), (4, 'minute', '-00:10:59.5'), (5, 'second', NULL), (6, 'mins', '1 day 02:03:04.5');
SELECT k, date_trunc(u, i) FROM spans_dt;
UPDATE spans_dt SET i = i * 3 WHERE k IN (1, 3);
DELETE FROM spans_dt WHERE k = 2;
INSERT INTO spans_dt VALUES (7, 'hour', '-100 hours -59 mins');
SELECT k, date_trunc(u, i), date_trunc('day', i) FROM spans_dt;
-- sluice: error not supported because months usually have fractional weeks
SELECT date_trunc('week', interval '3 days');
-- sluice: error not recognized for type interval
SELECT date_trunc('fortnight', interval '3 days');
-- An untyped constant beside an interval's * and / is a number.
CREATE TABLE iv_times (i INTERVAL);
INSERT INTO iv_times VALUES ('1 day'), ('-2 hours 3 minutes'), (NULL);
SELECT i * '2' AS a, '3' * i AS b, i / '0.5' AS c, i * '-2.5' AS d FROM iv_times;
SELECT interval '1 day' * '2';
INSERT INTO iv_times VALUES ('1 year 2 months');
-- Seconds rounded to a precision past the range are out of range, in
-- either sign, as PostgreSQL 18 says (15 wraps around).
SELECT interval '2562047787:00:54.775807' second(2), interval '-2562047787:00:54.775807' second(2);
-- sluice: error interval out of range
SELECT interval '2562047788:00:54.775807' second(2);
-- sluice: error interval out of range
SELECT interval '-2562047788:00:54.775807' second(2);

-- A cast of an interval to text writes IntervalStyle's form.
SET IntervalStyle = 'sql_standard';
CREATE TABLE isty (k INT, i INTERVAL);
INSERT INTO isty VALUES (1, '1 day 2 hours'), (2, '-3 years 1 month'), (3, '5 minutes');
SELECT k, i::text FROM isty;
UPDATE isty SET i = i * 2 WHERE k = 2;
SELECT k, i::text FROM isty;
SET IntervalStyle = 'postgres_verbose';
SELECT k, i::text, (i + interval '1 second')::text FROM isty;
RESET IntervalStyle;
