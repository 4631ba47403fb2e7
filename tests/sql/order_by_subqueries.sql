-- A subquery in ORDER BY (and DISTINCT ON): joined to the rows as a select
-- list's subquery is, its value a hidden column that the order reads; the
-- same text in DISTINCT ON and ORDER BY is one column.
CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMP);
CREATE TABLE k (x INT);
INSERT INTO ev VALUES (1, '2020-01-01'), (2, '2099-01-01'), (3, NULL), (4, '1999-01-01');
INSERT INTO k VALUES (3);
SELECT id FROM ev ORDER BY abs((SELECT max(x) FROM k) - id), id LIMIT 2;
-- sluice: error A subquery in a window's partition or order is not supported yet
SELECT id, rank() OVER (ORDER BY abs((SELECT max(x) FROM k) - id), id) FROM ev;
SELECT id, ts FROM ev e ORDER BY (SELECT count(*) FROM ev f WHERE f.ts < e.ts) DESC, id LIMIT 3;
SELECT DISTINCT ON ((SELECT max(x) FROM k) > id) id FROM ev ORDER BY (SELECT max(x) FROM k) > id, id;
SELECT id FROM ev ORDER BY (SELECT x FROM k WHERE x = ev.id) NULLS FIRST, id;
SELECT ts IS NULL AS none, count(*) FROM ev GROUP BY 1 ORDER BY (SELECT max(x) FROM k) * count(*) DESC LIMIT 1;
SELECT id % 2 AS odd, max(id) AS m FROM ev GROUP BY 1 ORDER BY m - (SELECT min(x) FROM k), odd;
SELECT id % 2 AS odd, count(*) FROM ev GROUP BY id % 2 ORDER BY 2, (SELECT count(*) FROM k WHERE x > odd);
INSERT INTO k VALUES (1);
DELETE FROM k WHERE x = 3;
INSERT INTO ev VALUES (5, '2021-01-01');
