-- age(): the difference as the calendar counts it, fields borrowing from
-- the next; age(x) from the midnight that began the clock's day.
CREATE TABLE people (id INT, born TIMESTAMP, d DATE);
INSERT INTO people VALUES (1, '1990-03-31 10:00', '1990-03-31'), (2, '2000-02-29 23:59:59.5', '2000-02-29'), (3, '2024-12-31', '2024-12-31'), (4, NULL, NULL), (5, '0044-03-15 BC', '0044-03-15 BC');
SELECT id, age('2025-03-01'::timestamp, born) AS a, age(born, '2025-03-01'::timestamp) AS b FROM people;
SELECT id, age(d, '2001-01-31'::date) AS a, age('2001-01-31'::date, d) AS b FROM people;
SELECT id, age(born) > interval '0' AS grown, age(born) IS NULL AS unknown FROM people;
SELECT age(timestamp '2001-04-10', timestamp '1957-06-13'), age(timestamp '1957-06-13', timestamp '2001-04-10');
SELECT age(timestamp '2020-03-31 00:00', timestamp '2020-02-29 12:30:45.25');
SELECT age(timestamp '2021-03-01', timestamp '2021-01-31'), age(timestamp '2021-01-31', timestamp '2021-03-01');
SELECT age(timestamptz '2021-03-01 05:00+00', timestamptz '2020-01-31 06:00+00');
INSERT INTO people VALUES (6, '1969-07-20 20:17:40', '1969-07-20');
DELETE FROM people WHERE id = 1;
-- sluice: error age() of an infinite timestamp is not supported yet
SELECT age(timestamp 'infinity', timestamp '2000-01-01');
