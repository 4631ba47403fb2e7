-- Date, time and timestamp input in PostgreSQL's forms (DateStyle ISO, MDY).
CREATE TABLE d (k INT, t TEXT);
INSERT INTO d VALUES (1, 'January 8, 1999'), (2, '1999-01-08'), (3, '1/8/1999'), (4, '01/02/03'),
  (5, '19990108'), (6, '990108'), (7, '1999.008'), (8, 'Jan-08-1999'), (9, '08-Jan-1999'),
  (10, '1999-Jan-08'), (11, '08 Jan 1999'), (12, 'Friday, January 8, 1999'), (13, '1999 01 08'),
  (14, 'Feb 29 2000'), (15, '2000-02-30'), (16, 'Sept 3 2021'), (17, '12/31/69'), (18, '0044-03-15 BC');
SELECT date 'January 8, 1999', date '08-Jan-1999', date '1/8/1999', date '19990108', date 'Jan 8 99 BC';
SELECT timestamp 'January 8, 1999 04:05:06', timestamp '1999-01-08 04:05:06 PST', timestamp '1/8/1999 4:05 PM', timestamp '08 Jan 1999 12:00:01 am';
SELECT time '2020-05-26 13:30:25.575401', time '04:05 PST', time '04:05:06.789';
SELECT k, t::date FROM d WHERE k NOT IN (7, 15);
SELECT k, (t || ' 10:11:12')::timestamp FROM d WHERE k IN (1, 2, 3, 9, 12, 18);
-- sluice: error invalid input syntax for type date
SELECT t::date FROM d WHERE k = 15;

-- 'infinity', '-infinity' and 'epoch': order, arithmetic, fields, casts.
CREATE TABLE ev (id INT, d DATE, t TIMESTAMP);
INSERT INTO ev VALUES (1, 'infinity', '-infinity'), (2, '-infinity', 'infinity'), (3, '2020-02-29', '2020-02-29 10:00:00'),
  (4, 'epoch', 'epoch'), (5, 'Infinity', 'INFINITY');
SELECT id, d, t, isfinite(d), isfinite(t) FROM ev;
SELECT id, d + 1, d - 7, t + interval '1 day', t - interval '1 mon', d + interval '1 hour' FROM ev;
SELECT id, date_trunc('month', t), date_trunc('year', d::timestamp) FROM ev;
SELECT id, extract(day FROM t), extract(month FROM d), date_part('year', t), date_part('epoch', d), date_part('dow', t) FROM ev;
SELECT id, d::timestamp, t::date FROM ev;
SELECT count(*) FILTER (WHERE t > '2000-01-01'), count(*) FILTER (WHERE d < '1900-01-01'), min(t), max(t), min(d), max(d) FROM ev;
SELECT e1.id, e2.id FROM ev e1 JOIN ev e2 ON e1.d = e2.d;
-- sluice: error cannot subtract infinite
SELECT t - timestamp '2000-01-01' FROM ev WHERE id = 1;
UPDATE ev SET t = 'infinity' WHERE id = 3;
DELETE FROM ev WHERE id = 2;
INSERT INTO ev VALUES (6, '-infinity', '-infinity');

-- make_date, make_time and make_timestamp, with PostgreSQL's range errors.
CREATE TABLE parts (id INT, y INT, m INT, d INT, h INT, mi INT, s FLOAT8);
INSERT INTO parts VALUES (1, 2013, 7, 15, 8, 20, 0.0), (2, -44, 3, 15, 23, 59, 59.999999), (3, 2024, 2, 29, 24, 0, 0),
  (4, 2023, 2, 29, 10, 55, 100.1), (5, 0, 7, 15, 1, 2, 3.5), (6, 2013, 13, 1, -1, 0, 0);
SELECT id, make_date(y, m, d) FROM parts WHERE id <= 3;
SELECT id, make_time(h, mi, s) FROM parts WHERE id <= 3;
SELECT id, make_timestamp(y, m, d, h, mi, s) FROM parts WHERE id <= 3;
SELECT make_date(2013, 7, 15), make_date(-44, 3, 15), make_time(8, 20, 0.0), make_timestamp(2014, 12, 28, 6, 30, 45.887);
-- sluice: error date field value out of range: 0-07-15
SELECT make_date(0, 7, 15);
-- sluice: error date field value out of range: 2013-11--1
SELECT make_date(2013, 11, -1);
-- sluice: error time field value out of range: 10:55:100.1
SELECT make_time(10, 55, 100.1);
-- sluice: error time field value out of range: 24:00:2.1
SELECT make_time(24, 0, 2.1);
UPDATE parts SET d = 28 WHERE id = 4;
DELETE FROM parts WHERE id = 1;

-- EXTRACT and date_part of a TIME: the day's fields.
CREATE TABLE tt (id INT, t TIME);
INSERT INTO tt VALUES (1, '13:30:25.575401'), (2, '00:00'), (3, '23:59:59.999999'), (4, NULL);
SELECT id, extract(hour FROM t), extract(minute FROM t), extract(second FROM t), extract(milliseconds FROM t), extract(microseconds FROM t), extract(epoch FROM t) FROM tt;
SELECT id, date_part('hour', t), date_part('second', t), date_part('epoch', t) FROM tt;
-- sluice: error unit "day" not supported for type time without time zone
SELECT extract(day FROM t) FROM tt WHERE id = 1;
UPDATE tt SET t = '06:07:08' WHERE id = 2;
DELETE FROM tt WHERE id = 3;

-- Years before 1 AD, EXTRACT from a DATE (whole numbers), to_char of infinity,
-- and the current time's words, read when the text is read.
CREATE TABLE bc (id INT, d DATE, t TIMESTAMP);
INSERT INTO bc VALUES (1, '2020-08-11 BC', '0097-02-16 17:32:01 BC'), (2, '0001-01-01 BC', '0001-12-31 23:59:59 BC'),
  (3, '1970-01-01', 'infinity'), (4, 'infinity', '-infinity'), (5, '2020-08-11', '2020-08-11 10:00:00');
SELECT id, extract(year from d), extract(isoyear from d), extract(decade from d), extract(century from d), extract(epoch from d), extract(julian from d), extract(doy from d) FROM bc;
SELECT id, extract(year from t), extract(isoyear from t), date_part('year', t), to_char(t, 'YYYY-MM-DD HH24:MI:SS BC'), to_char(d, 'YYYY BC') FROM bc;
UPDATE bc SET d = d - 400 WHERE id = 5;
DELETE FROM bc WHERE id = 2;
SELECT id, extract(year from d), extract(week from d), extract(dow from d), to_char(t, 'Y,YYY IYYY') FROM bc;
-- sluice: error unit "hour" not supported for type date
SELECT extract(hour from date '2020-01-01');
SELECT date 'tomorrow' - date 'yesterday', date 'today' - date 'yesterday', timestamp 'today' = date 'today', timestamp 'now' >= timestamp 'today', timestamp 'tomorrow' > timestamp 'now';
-- Every spelling of a unit has its field's scale (milliseconds 3, seconds 6).
SELECT extract(msec from timestamp '2020-01-01 10:00:00'), extract(MILLISECONDS from timestamp '2020-01-01 10:00:01.5'), extract(secs from timestamp '2020-01-01 10:00:00'), extract(usec from timestamp '2020-01-01 10:00:01.5'), extract(yrs from timestamp '2020-01-01 10:00:00');
-- DateStyle's input order: SET datestyle TO dmy, ymd, mdy (or 'ISO, DMY')
-- changes how numbers in date text read, in literals, in casts of a
-- column's text (kept by the view as it was bound) and in INSERT.
CREATE TABLE dmy (k INT, t TEXT, d DATE);
INSERT INTO dmy VALUES (1, '1/8/1999', '1999-01-08'), (2, '08-01-1999', NULL), (3, '01/02/03', NULL),
  (4, '18/1/1999', NULL), (5, 'Jan-08-99', NULL), (6, '08-Jan-99', NULL), (7, '1999-01-08', NULL),
  (8, '99-Jan-08', NULL), (9, '1999-08-Jan', NULL), (10, '08 Jan 1999', NULL);
SET datestyle TO dmy;
SELECT date '1/8/1999', date '08-01-1999', date '18/1/1999', date '01/02/03', date '08-Jan-99', date 'Jan-08-99', date '1999-01-08';
SELECT timestamp '1/8/1999 10:00', timestamp '08-Jan-99 10:00';
SELECT k, t::date FROM dmy WHERE k IN (1, 2, 3, 4, 5, 6, 7, 10);
INSERT INTO dmy VALUES (11, 'dmy', '2/3/2004');
SELECT k, d FROM dmy WHERE d IS NOT NULL;
SELECT date '1/18/1999';
SET datestyle TO ymd;
SELECT date '01/02/03', date '99-Jan-08', date '1999-Jan-08', date '08-Jan-1999', date '1999-01-08';
SELECT k, t::date FROM dmy WHERE k IN (3, 7, 8, 10);
SET datestyle TO 'ISO, MDY';
SELECT date '1/8/1999', date '01/02/03', date '08-Jan-99', date '1999-08-Jan';
SELECT k, t::date FROM dmy WHERE k IN (1, 2, 3, 5, 6, 7, 10);
SET datestyle TO iso, dmy;
SELECT date '1/8/1999', date '01/02/03';
RESET datestyle;
SELECT date '1/8/1999';
UPDATE dmy SET t = '12/1/2000' WHERE k = 1;
DELETE FROM dmy WHERE k = 2;
-- A day of the year, a Julian day, two-digit years in YMD, the clock's 24:00.
SELECT date '1999.008', date 'J2451187', date 'j2440588';
SELECT k, t::date FROM d WHERE k = 7;
SET datestyle TO ymd;
SELECT date '99-01-08', date '69-08-01', date '1999-01-08';
SET datestyle TO 'ISO, MDY';
SELECT time '24:00:00', time '23:59:60', time '23:59:59.9999999', time '10:00:00.0000004', timestamp '2000-01-01 23:59:59.9999996';
-- sluice: error invalid input syntax for type time
SELECT time '24:00:00.01';
-- PostgreSQL's timestamps reach 294276 AD; ours end in 294247 AD.
SELECT timestamp '294247-01-10 04:00:54', '294246-12-31'::timestamp + interval '1 day';
-- sluice: error a timestamp after 294247-01-10 04:00:54.775807 is not supported yet
SELECT '294276-12-31 23:59:59'::timestamp;
-- sluice: error a timestamp after 294247-01-10 04:00:54.775807 is not supported yet
SELECT date_part('epoch', '294270-01-01 00:00:00'::timestamp);
-- 'now' in a transaction is its start, in the rows it inserts and in the
-- query; a cast to TIMESTAMP(p) or TIME(p) rounds to p digits.
CREATE TABLE tsn (d1 TIMESTAMP, k INT);
BEGIN;
INSERT INTO tsn VALUES ('now', 1);
INSERT INTO tsn VALUES ('now', 2), ('today', 3);
SELECT count(*) FROM tsn WHERE d1 = timestamp without time zone 'now';
SELECT count(*) FROM tsn WHERE d1::timestamp(2) = timestamp(2) without time zone 'now';
COMMIT;
INSERT INTO tsn VALUES ('2020-01-01 10:00:00.125', 4), ('2020-01-01 10:00:00.994999', 5), ('1960-06-30 23:59:59.5', 6);
UPDATE tsn SET d1 = '1999-12-31 23:59:59.999' WHERE k = 3;
DELETE FROM tsn WHERE k = 1;
SELECT k, d1::timestamp(2), d1::timestamp(0), d1::time(1), d1::timestamptz(1) FROM tsn WHERE k > 2;
SELECT timestamp(2) '2020-01-01 10:00:00.125', time(0) '23:59:59.6', '-infinity'::timestamp(0);
