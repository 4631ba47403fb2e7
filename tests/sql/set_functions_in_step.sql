-- Different set-returning functions in one select list run in lockstep,
-- as PostgreSQL's ProjectSet: as many rows as the longest gives, the
-- others NULL past their end; a NULL argument gives none of its rows.
CREATE TABLE t (id INT, n INT, a INT[], s TEXT);
INSERT INTO t VALUES (1, 2, ARRAY[10, 20, 30], 'a,b'), (2, 0, ARRAY[]::INT[], 'c'), (3, NULL, NULL, NULL), (4, 3, ARRAY[5], 'x,y,z,w');
SELECT id, generate_series(1, n) AS g, unnest(a) AS u FROM t;
SELECT id, generate_series(1, n) AS g, unnest(string_to_array(s, ',')) AS p, generate_series(1, n) + 100 AS g2 FROM t;
SELECT generate_series(0, 2) AS s1, generate_series(1, 4) AS s2;
SELECT generate_series(0, 2) AS s1, generate_series((random() * .1)::int, 2) AS s2;
SELECT unnest(ARRAY[1, 2]) AS x, unnest(ARRAY['a', 'b', 'c']) AS y, 7 AS k;
SELECT id, unnest(a) * 2 AS d, generate_series(n, 1, -1) AS down FROM t WHERE id > 1;
INSERT INTO t VALUES (5, 1, ARRAY[1, 2], 'q');
DELETE FROM t WHERE id = 1;
UPDATE t SET n = 4 WHERE id = 2;
SELECT generate_series(0, 2) AS s1, generate_series((random() * .1)::int, 2) AS s2 ORDER BY s2 DESC;
SELECT id, generate_series(1, 2) AS g, unnest(a) AS u FROM t ORDER BY id, g LIMIT 4;
-- sluice: error step size cannot equal zero
SELECT id, generate_series(1, n, 0), unnest(ARRAY[1]) FROM t;
SELECT id, unnest(ARRAY[ARRAY[1,2],ARRAY[3,4]]) AS flat, generate_series(1, n) FROM t;
