-- TIME WITH TIME ZONE (timetz): a time of day and the offset it was written
-- with, both kept; ordered and compared by the UTC-adjusted time, then by
-- the zone, as PostgreSQL's timetz_cmp (pg_sql sets TimeZone to UTC, the
-- zone of a timetz written without one).
CREATE TABLE tt (id INT, t TIMETZ, p TIME, z TEXT, g INT);
INSERT INTO tt VALUES
  (1, '11:00-08', '11:00', '11:00:00+05:30', 1),
  (2, '11:00:00+05:30', '19:00', '1:00 PST', 1),
  (3, '1:00 PST', '05:30', '11:00', 2),
  (4, '11:00', '11:00', '2001-10-19 10:23:54+01', 2),
  (5, '19:00+00', '00:00', '11:00:00.25-08', 3),
  (6, '00:00+01', '23:00', '24:00:00+05', 3),
  (7, '23:00-00', NULL, '10:00:00+05:30:15', 1),
  (8, NULL, '12:00', '23:59:59.999999-15:59:59', 2),
  (9, '10:30:15.5+05:30', '10:30:15.5', '11:00 am PST', 3),
  (10, '04:00:00 -07', '04:00', '11:00Z', 1);
SELECT id, t, p, z::timetz FROM tt;
SELECT timetz '11:00-08', time with time zone '11:00:00+05:30', '1:00 PST'::timetz,
  '11:00'::timetz, '11:00:00.123-08'::timetz, '11:00 -8'::timetz, '11:00+0530'::timetz;
-- Order, equality and grouping: by UTC time, then by zone; 11:00-08 and
-- 19:00+00 are the same instant of the day but not equal.
SELECT id, t FROM tt ORDER BY t, id;
SELECT id, t FROM tt ORDER BY t DESC NULLS LAST, id LIMIT 4;
SELECT a.id, b.id, a.t = b.t, a.t < b.t FROM tt a, tt b WHERE a.id < b.id AND a.id < 4;
SELECT t, count(*) FROM tt GROUP BY t;
SELECT g, min(t), max(t), count(DISTINCT t) FROM tt GROUP BY g;
SELECT '00:00+01'::timetz < '23:00-00'::timetz, '11:00-08'::timetz = '19:00+00'::timetz,
  '11:00-08'::timetz > '19:00+00'::timetz, '10:00+01'::timetz = '09:00'::time;
SELECT id FROM tt WHERE t > '12:00+00';
SELECT id FROM tt WHERE t = '19:00+00' OR t = time '11:00';
SELECT a.id, b.id FROM tt a JOIN tt b ON a.t = b.p::timetz;
SELECT t FROM tt UNION SELECT p FROM tt;
SELECT id, CASE WHEN id < 3 THEN t ELSE p END, coalesce(t, p) FROM tt;
-- Casts: to time (the zone dropped), from time (UTC), from timestamptz (its
-- time of day in UTC), to and from text.
SELECT id, t::time, p::timetz, t::text, z::timetz::time FROM tt;
SELECT timestamptz '2000-01-01 10:00+05'::timetz, '2001-10-19 23:30:00-03'::timestamptz::timetz,
  'infinity'::timestamptz::timetz;
-- Arithmetic: the time wraps around the clock, the zone stays; an
-- interval's days and months are ignored, as PostgreSQL ignores them.
SELECT id, t + interval '15 hours', t - interval '1 day 11 hours', interval '90 min' + t FROM tt;
SELECT p + interval '15 hours', p - interval '1 year 11 hours', interval '1 hour' + p FROM tt;
SELECT timetz '24:00+00' + interval '0', time '24:00' + interval '0',
  timetz '23:30-08' + interval '1 hour';
-- Fields.
SELECT id, extract(hour FROM t), extract(minute FROM t), extract(second FROM t),
  extract(epoch FROM t), extract(timezone FROM t), extract(timezone_hour FROM t),
  extract(timezone_minute FROM t), date_part('epoch', t), date_part('timezone', t) FROM tt;
-- Windows: a RANGE frame of UTC time around each row's own, in its zone.
SELECT id, t, count(*) OVER (ORDER BY t RANGE BETWEEN '70 min' PRECEDING AND '2 hours' FOLLOWING),
  first_value(id) OVER (ORDER BY t, id), lag(t) OVER (ORDER BY t, id) FROM tt;
SELECT id, t, count(*) OVER (ORDER BY t DESC RANGE BETWEEN '70 min' PRECEDING AND CURRENT ROW)
FROM tt;
SELECT id, sum(id) OVER (PARTITION BY g ORDER BY t RANGE BETWEEN '1 day 1 hour' PRECEDING
  AND '-1 day' FOLLOWING) FROM tt;
SELECT id, count(*) OVER (ORDER BY p RANGE BETWEEN '1 day 1 hour' PRECEDING AND CURRENT ROW)
FROM tt;
-- Changes.
UPDATE tt SET t = t + interval '1 hour' WHERE id = 2;
DELETE FROM tt WHERE id = 3;
INSERT INTO tt VALUES (11, '03:00+08', '03:00', 'x', 1), (12, '19:00+00', '19:00', 'y', 2);
SELECT t, count(*), sum(id) FROM tt GROUP BY t;
SELECT g, min(t), max(t) FROM tt GROUP BY g;
-- 24:00:00 is a time of its own, after 00:00:00; arrays, JSON, DISTINCT.
CREATE TABLE ta (id INT, t TIMETZ, a TIMETZ[]);
INSERT INTO ta VALUES (1, '11:00-08', '{11:00-08,"12:00:00+05:30"}'), (2, '24:00+00', NULL),
  (3, '00:00+00', '{}'), (4, NULL, '{NULL,1:00 PST}');
SELECT id, t, a, to_json(t), to_jsonb(t), jsonb_build_object('t', t) FROM ta;
SELECT DISTINCT t FROM ta;
SELECT x.id, y.id FROM ta x LEFT JOIN ta y ON x.t > y.t;
SELECT id, max(t) OVER (ORDER BY id ROWS 1 PRECEDING), min(t) OVER () FROM ta;
SELECT array_agg(t ORDER BY t) FROM ta;
SELECT t::varchar, cast(t AS text) || '!', CAST('11:00+01' AS time(3) with time zone) FROM ta;
-- Bad input says what it could not read.
-- sluice: error invalid input syntax for type time with time zone: "11:00 XYZ"
SELECT '11:00 XYZ'::timetz;
-- sluice: error invalid input syntax for type time with time zone: "25:00+01"
SELECT timetz '25:00+01';
-- sluice: error unit "day" not supported for type time with time zone
SELECT extract(day FROM timetz '10:00+01');
