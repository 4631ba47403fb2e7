-- TIMESTAMP WITH TIME ZONE (timestamptz): an instant, read in any zone and
-- shown in the session's, UTC (pg_sql sets PostgreSQL's TimeZone to UTC).
CREATE TABLE tz (id INT, t TIMESTAMPTZ, p TIMESTAMP, z TEXT);
INSERT INTO tz VALUES
  (1, '2000-10-19 10:23:54+01', '2000-10-19 10:23:54', '2000-10-19 10:23:54 PST'),
  (2, '2001-10-19 10:23:54-08:00', '2001-10-19 10:23:54', '2001-10-19T10:23:54Z'),
  (3, '2001-10-19 10:23:54.25 BST', '2001-10-19 10:23:54', 'January 8, 1999 04:05:06 CEST'),
  (4, '2002-10-19 10:23:54', '2002-10-19 10:23:54', '2002-10-19 10:23:54+0530'),
  (5, 'infinity', '-infinity', '1999-01-08 04:05:06 -8:00'),
  (6, '2003-10-19 10:23:54 UTC', NULL, '0044-03-15 12:00:00+02 BC'),
  (7, NULL, '2004-02-29 23:59:59.999999', '2004-02-29 23:59:59.999999 EST');
SELECT id, t, p, z::timestamptz FROM tz;
SELECT timestamptz '2000-10-19 10:23:54+01', timestamp with time zone '1999-01-08 04:05:06 PDT',
  '2000-01-01 00:00:00 NZDT'::timestamptz, '2000-06-30 23:00:00-02:30'::timestamptz;
-- Comparisons, with a timestamp (the session's zone: UTC) and with text.
SELECT id FROM tz WHERE t > '2001-10-19 17:00:00+00';
SELECT id, t = p, t < p, t > p FROM tz;
SELECT a.id, b.id FROM tz a JOIN tz b ON a.t = b.p;
SELECT id, t::timestamp, p::timestamptz, t::date, t::time, t::text FROM tz;
SELECT id, CASE WHEN id < 3 THEN t ELSE p END, coalesce(t, p), greatest(t, p) FROM tz;
SELECT t FROM tz UNION SELECT p FROM tz;
-- Arithmetic: with intervals, and the difference of two.
SELECT id, t + interval '1 day', t - interval '1 month', interval '2 hours' + t, t - p,
  t - timestamptz '2000-01-01 00:00+00' FROM tz WHERE id <> 5;
-- Functions: fields, truncation, bins, to_char, to_timestamp.
SELECT id, extract(year FROM t), extract(hour FROM t), date_part('epoch', t), extract(dow FROM t)
FROM tz WHERE id <> 5;
SELECT id, date_trunc('day', t), date_trunc('month', t), date_trunc('hour', p) FROM tz;
SELECT date_trunc('month', DATE '2020-05-17'), date_trunc('year', DATE '2020-05-17') + interval '1 day';
SELECT id, date_bin(interval '15 minutes', t, timestamptz '2000-01-01 00:00+00') FROM tz WHERE id <> 5;
SELECT id, to_char(t, 'YYYY-MM-DD HH24:MI:SS TZ OF') FROM tz WHERE id <> 5;
SELECT to_timestamp(0), to_timestamp(1000000000.5), to_timestamp('2020-05-17 10:11', 'YYYY-MM-DD HH24:MI');
-- Aggregates and windows over a timestamptz.
SELECT min(t), max(t), count(DISTINCT t) FROM tz;
SELECT id, t, lag(t) OVER (ORDER BY t, id), max(t) OVER (ORDER BY id ROWS 1 PRECEDING) FROM tz;
SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN interval '1 year' PRECEDING AND CURRENT ROW)
FROM tz WHERE t IS NOT NULL;
SELECT date_trunc('year', t) AS y, count(*) FROM tz GROUP BY 1;
-- Changes.
UPDATE tz SET t = t + interval '1 hour' WHERE id = 2;
DELETE FROM tz WHERE id = 3;
INSERT INTO tz VALUES (8, '2001-10-19 18:23:54 PDT', '2001-10-19 10:23:54', 'x');
SELECT id, t FROM tz WHERE t BETWEEN '2001-01-01' AND '2002-01-01 00:00 CET';
SELECT date_trunc('year', t) AS y, count(*), min(p) FROM tz GROUP BY 1;
-- Bad input says what it could not read.
-- sluice: error invalid input syntax for type timestamp with time zone: "2000-10-19 10:23:54 XYZ"
SELECT timestamptz '2000-10-19 10:23:54 XYZ';
-- sluice: error invalid input syntax for type timestamp with time zone: "2000-10-19 25:00:00+01"
SELECT '2000-10-19 25:00:00+01'::timestamptz;
-- Past the range of microseconds since 1970 (294,247 AD; PostgreSQL's
-- reaches 294,276 AD) a timestamp is not supported yet, not wrapped around.
-- sluice: error timestamp "294270-01-01 00:00:00": a timestamp after 294247-01-10 04:00:54.775807 is not supported yet
SELECT '294270-01-01 00:00:00'::timestamp;
-- sluice: error a timestamp after 294247-01-10 04:00:54.775807 is not supported yet
SELECT '294270-01-01 00:00:00+00'::timestamptz;
SELECT '294246-12-31 23:59:59'::timestamp, date_part('epoch', '294246-12-31 23:59:59'::timestamp);
-- LIMIT without ORDER BY over one ordered subquery takes its order.
SELECT * FROM (SELECT id, t FROM tz ORDER BY t DESC, id) s LIMIT 3;
SELECT id FROM (SELECT id, t FROM tz ORDER BY t NULLS FIRST, id) s WHERE id > 1 LIMIT 2 OFFSET 1;
