-- Column DEFAULTs: what an INSERT that leaves a column out, names DEFAULT,
-- or says DEFAULT VALUES puts in it, and UPDATE ... SET c = DEFAULT; and
-- tables without columns (PostgreSQL's join.sql reads one such table).
CREATE TABLE d (a int DEFAULT 7, b text DEFAULT 'x' || 'y', c int, e date DEFAULT '2020-01-02');
INSERT INTO d DEFAULT VALUES;
INSERT INTO d VALUES (1, DEFAULT, 3);
INSERT INTO d VALUES (2);
INSERT INTO d (c) VALUES (5), (6);
INSERT INTO d (a, b) VALUES (NULL, NULL);
INSERT INTO d VALUES (DEFAULT, 'q', DEFAULT, DEFAULT) RETURNING *;
INSERT INTO d (c) SELECT 9 RETURNING a, b, c;
INSERT INTO d SELECT 10, 'from select';
INSERT INTO d DEFAULT VALUES RETURNING *;
SELECT * FROM d;
SELECT b, count(*), sum(a) FROM d GROUP BY b;
UPDATE d SET a = DEFAULT, b = 'z' WHERE c = 5;
SELECT * FROM d;
UPDATE d SET b = DEFAULT WHERE c = 6 RETURNING *;
DELETE FROM d WHERE a = 7;
SELECT * FROM d;
-- under a primary key, and with ON CONFLICT
CREATE TABLE k (id int PRIMARY KEY, n int NOT NULL DEFAULT 100, t text DEFAULT 'new');
INSERT INTO k (id) VALUES (1), (2);
INSERT INTO k (id, n) VALUES (1, 5), (3, DEFAULT) ON CONFLICT (id) DO UPDATE SET t = DEFAULT, n = excluded.n RETURNING *;
INSERT INTO k (id, t) VALUES (2, 'kept'), (4, DEFAULT) ON CONFLICT (id) DO NOTHING;
SELECT * FROM k;
WITH w AS (INSERT INTO k (id) VALUES (5) RETURNING n) SELECT n + 1 FROM w;
SELECT * FROM k;
-- fewer values than columns fill the first ones
INSERT INTO k VALUES (6);
SELECT * FROM k WHERE id = 6;
-- a table without columns
CREATE TABLE onerow ();
INSERT INTO onerow DEFAULT VALUES;
SELECT count(*) FROM onerow;
SELECT 1 AS x FROM onerow;
SELECT * FROM onerow;
SELECT exists(SELECT * FROM onerow);
SELECT v.x1 FROM (SELECT 1, 0 FROM onerow) v(x1, x2);
INSERT INTO onerow DEFAULT VALUES;
SELECT count(*) FROM onerow;
DELETE FROM onerow;
SELECT count(*) FROM onerow;
