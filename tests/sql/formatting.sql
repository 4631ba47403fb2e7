-- Data type formatting functions: to_char of numbers, timestamps, dates,
-- intervals and times; to_number, to_date, to_timestamp. Every view is
-- checked against PostgreSQL as the rows come, change and go.
CREATE TABLE nums (k INT PRIMARY KEY, i INT, b BIGINT, n NUMERIC(20,6), d DOUBLE PRECISION, r REAL);
INSERT INTO nums VALUES
  (1, 0, 0, 0, 0, 0),
  (2, 7, 1234567890123, 3.141593, 2.5, 1.5),
  (3, -42, -9876543210, -1234.5, -0.125, -2.25),
  (4, 1234, 4567890123456789, 98765.432109, 12345678.9, 0.001),
  (5, 21, 11, 0.05, 1e-7, 333.3);

CREATE TABLE moments (k INT PRIMARY KEY, t TIMESTAMP, dt DATE, iv INTERVAL, tm TIME);
INSERT INTO moments VALUES
  (1, '2024-01-31 13:05:09.123456', '2024-01-31', '1 year 2 mons 3 days 04:05:06.789', '13:05:09.5'),
  (2, '1999-12-31 23:59:59', '1999-12-31', '-3 days -02:03:04', '00:00:00'),
  (3, '2000-02-29 00:00:00.5', '2000-02-29', '25 hours', '12:00:00'),
  (4, '0044-03-15 12:00:00 BC', '0044-03-15 BC', '-1 year -11 mons', '23:59:59.999999'),
  (5, '2021-01-03 07:08:09', '2021-01-03', '0', '07:08:09');

CREATE TABLE texts (k INT PRIMARY KEY, num TEXT, ts TEXT);
INSERT INTO texts VALUES
  (1, '1,234.56', '2024-01-31 13:05:09'),
  (2, '-0,042.10', '1999-12-31 23:59:59'),
  (3, '9,999.99', '2000-02-29 00:00:00');

-- Integers, bigints and numerics: digits, signs, separators, overflow.
SELECT k, to_char(i, '999'), to_char(i, '9G999D99'), to_char(i, 'FM9999.00'), to_char(i, 'S999'),
  to_char(i, '999PR'), to_char(i, 'MI999'), to_char(i, 'PL999'), to_char(i, 'SG999'), to_char(i, '0000'),
  to_char(i, 'FM0000.90'), to_char(i, '99'), to_char(i, '999th'), to_char(i, 'FM999TH'), to_char(i, 'L999'),
  to_char(i, '99V99'), to_char(i, '"n="999'), to_char(i, 'FMRN'), to_char(i, 'rn'), to_char(i, '9.99EEEE')
FROM nums;
SELECT k, to_char(b, '9,999,999,999,999,999'), to_char(b, 'FM9G999G999G999G999G999D00'),
  to_char(b, 'S0999999999999999'), to_char(b, '9999999999999999PR'), to_char(b, 'FMSG9999999999999999th'),
  to_char(b, '9.999EEEE'), to_char(b, '999')
FROM nums;
SELECT k, to_char(n, '99999.999999'), to_char(n, 'FM99999.999999'), to_char(n, 'FM99999.990'), to_char(n, 'S99999.99'),
  to_char(n, '99999.9PR'), to_char(n, 'FMMI99999.99'), to_char(n, '00000.0'), to_char(n, '9.9'), to_char(n, 'FM99999'),
  to_char(n, '9.999EEEE'), to_char(n, 'RN'), to_char(n, '99V9'), to_char(n, 'FM9.'), to_char(n, '.99')
FROM nums;
-- Floating point: rounded to the digits the type holds.
SELECT k, to_char(d, '99999999.99'), to_char(d, 'FM99999999.999'), to_char(d, 'S9.999EEEE'), to_char(d, '999'),
  to_char(r, '9999.99'), to_char(r, 'FM9999.9999'), to_char(r, '9.99EEEE'), to_char(d, 'FM0.0000000000000000000')
FROM nums;
SELECT to_char(1234.5, '9,999.99'), to_char(-0.5, 'FM90.99'), to_char(0.5, '9.9'), to_char(12, 'FM9.9'),
  to_char(100::numeric, 'foo999'), to_char(100::numeric, 'f"ool"999'), to_char(5, 'FMRN'), to_char(4000, 'RN'),
  to_char(3.99, 'FM9'), to_char(-3.5, 'FM9PR'), to_char(12.5::float8, 'FM9.9EEEE'), to_char(7, '');

-- Timestamps, dates, intervals and times.
SELECT k, to_char(t, 'YYYY-MM-DD HH24:MI:SS.US'), to_char(t, 'Day, DD Month YYYY'), to_char(t, 'FMDay FMMonth FMDD'),
  to_char(t, 'DAY day DY Dy dy MONTH month MON Mon mon'), to_char(t, 'HH HH12 AM am A.M. p.m. PM'),
  to_char(t, 'Y,YYY YYY YY Y CC Q WW W DDD D J'), to_char(t, 'IYYY IYY IY I IW IDDD ID'),
  to_char(t, 'FF1 FF2 FF3 FF4 FF5 FF6 MS SSSS SSSSS'), to_char(t, 'YYYY BC B.C. ad RM rm'),
  to_char(t, 'DDth DDTH FMDDth MMth HH24th'), to_char(t, '"Year" YYYY "at" HH:MI\"'),
  to_char(t, 'TZ|tz|TZH|TZM|OF'), to_char(t, 'TMDay TMMonth TMMON'), to_char(t, 'FXYYYY-FMMM-DD')
FROM moments;
SELECT k, to_char(dt, 'YYYY-MM-DD'), to_char(dt, 'FMMonth FMDDth, YYYY AD'), to_char(dt, 'TZ tz OF TZH:TZM'),
  to_char(dt, 'IYYY-"W"IW-ID'), to_char(dt, 'J CC Q'), to_char(dt, 'HH24:MI:SS')
FROM moments;
SELECT k, to_char(iv, 'HH24:MI:SS.MS'), to_char(iv, 'YYYY MM DD HH12 AM'), to_char(iv, 'FMHH24"h"FMMI"m"'),
  to_char(iv, 'SSSS US'), to_char(iv, 'RM rm'), to_char(iv, 'DDD WW W J CC Q'), to_char(iv, 'Y,YYY YY')
FROM moments;
SELECT k, to_char(tm, 'HH12:MI:SS PM'), to_char(tm, 'HH24 FF3 SSSS')
FROM moments;
SELECT to_char(TIMESTAMP '2010-01-01 00:00:00', 'IYYY IW ID'), to_char(TIMESTAMP '2008-12-29 10:00', 'IYYY IW IDDD'),
  to_char(INTERVAL '15 months', 'RM'), to_char(INTERVAL '-14 months', 'rm'), to_char(TIMESTAMP '2024-05-05', '');

-- Text read back: numbers, dates and timestamps.
SELECT k, to_number(num, '9G999D99'), to_number(num, 'S9,999.99') FROM texts;
SELECT to_number('-34,338,492', '99G999G999'), to_number('<564646.654564>', '999999.999999PR'),
  to_number('5.01-', 'FM9.999999MI'), to_number('.01', 'FM9.99'), to_number('$1,234.56', 'L99,999.99'),
  to_number('42nd', '99th'), to_number('12', ''), to_number('12', '99V9'), to_number('1,234', '9G999V99');
SELECT k, to_date(ts, 'YYYY-MM-DD'), to_timestamp(ts, 'YYYY-MM-DD HH24:MI:SS')::timestamp,
  to_char(to_timestamp(ts, 'YYYY-MM-DD HH24:MI:SS'), 'DD Mon YYYY HH12 AM') FROM texts;
SELECT to_date('05 Dec 2000', 'DD Mon YYYY'), to_date('2000 12 05', 'YYYY MM DD'), to_date('20100309', 'YYYYMMDD'),
  to_date('2011 12  18', 'YYYY MM DD'), to_date('1 4 1902', 'Q MM YYYY'), to_date('3 4 21 01', 'W MM CC YY'),
  to_date('2458872', 'J'), to_date('44-02-01 BC', 'YYYY-MM-DD BC'), to_date('2009-W01-1', 'IYYY-"W"IW-ID'),
  to_date('2020 060', 'YYYY DDD'), to_date('January 8, 99', 'Month DD, YY');
SELECT to_timestamp('97/2/16 8:14:30', 'FMYYYY/FMMM/FMDD FMHH:FMMI:FMSS')::timestamp,
  to_timestamp('2011-12-18 11:38 PM', 'YYYY-MM-DD HH12:MI PM')::timestamp,
  to_timestamp('2011-12-18 11:38 +05:30', 'YYYY-MM-DD HH12:MI TZH:TZM')::timestamp,
  to_timestamp('2011-12-18 11:38 -05', 'YYYY-MM-DD HH12:MI TZH')::timestamp,
  to_timestamp('1985 January 12', 'YYYY FMMonth DD')::timestamp,
  to_timestamp('15 "text between quote marks" 98 54 45', E'HH24 "\\"text between quote marks\\"" YY MI SS')::timestamp,
  to_timestamp('2011-12-18 23:38:15.12', 'YYYY-MM-DD HH24:MI:SS.FF1')::timestamp,
  to_timestamp('2011-12-18 23:38:15.123456', 'YYYY-MM-DD HH24:MI:SS.US')::timestamp,
  to_timestamp('44-02-01 11:12:13 BC', 'YYYY-MM-DD HH24:MI:SS BC')::timestamp,
  to_timestamp('  2005  03  ', 'YYYYMMDD')::timestamp,
  to_timestamp('10:30', 'HH24:MI')::timestamp;
SELECT to_timestamp(0)::timestamp, to_timestamp(1284352323.5)::timestamp, to_timestamp(-1.000001)::timestamp;

-- Bad templates and bad input: PostgreSQL's errors.
-- sluice: error invalid format specification for an interval value
SELECT to_char(iv, 'Day') FROM moments;
-- sluice: error multiple decimal points
SELECT to_char(i, '9.9.9') FROM nums;
-- sluice: error cannot use "S" twice
SELECT to_char(n, 'S9S') FROM nums;
-- sluice: error "EEEE" is incompatible with other formats
SELECT to_char(d, 'FM9.9EEEE') FROM nums;
-- sluice: error date/time field value out of range
SELECT to_date('2021-02-30', 'YYYY-MM-DD');
-- sluice: error invalid value "xx" for "MON"
SELECT to_date('xx 2000', 'MON YYYY');
-- sluice: error hour "13" is invalid for the 12-hour clock
SELECT to_timestamp('13:30', 'HH:MI');
-- sluice: error invalid input syntax for type numeric
SELECT to_number('abc', '999');
-- sluice: error is only supported in to_char
SELECT to_timestamp('2000 UTC', 'YYYY TZ');
-- sluice: error conflicting values for "MM" field in formatting string
SELECT to_date('2000 03 04', 'YYYY MM MM');

-- Changes, step by step: every view follows them.
INSERT INTO nums VALUES (6, -1, -1, -0.000001, -1e15, -0.5), (7, 3999, 9223372036854775807, 99999999999999.999999, 0.5, 65504);
UPDATE nums SET i = i * 3, n = n / 7 WHERE k IN (2, 3);
DELETE FROM nums WHERE k = 5;
INSERT INTO moments VALUES (6, '1900-06-15 00:30:00', '1900-06-15', '100 years 11 mons 30 days 23:59:59.999999', '00:30:00');
UPDATE moments SET t = t + INTERVAL '1 month 12 hours', dt = dt + 40, iv = iv + iv WHERE k IN (1, 5);
DELETE FROM moments WHERE k = 3;
INSERT INTO texts VALUES (4, '0,000.01', '2016-02-29 12:00:00');
UPDATE texts SET num = '-9,876.54', ts = '1970-01-01 00:00:00' WHERE k = 2;
DELETE FROM texts WHERE k = 3;

CREATE TABLE tc_v (val numeric);
INSERT INTO tc_v VALUES ('-inf'), ('inf'), ('nan'), (-4.2);
SELECT val, to_char(val, 'MI9999999999.99') as numeric, to_char(val::float8, 'MI9999999999.99') as float8 FROM tc_v;
SELECT val, to_char(val, 'MI99.99') as numeric, to_char(val::float8, 'MI99.99') as float8 FROM tc_v;
