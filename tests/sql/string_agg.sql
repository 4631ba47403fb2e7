-- string_agg and array_agg, ordered by their value, kept up to date as rows
-- come and go.
CREATE TABLE t (g INT, s TEXT, n INT);
INSERT INTO t VALUES (1, 'b', 2), (1, 'a', 1), (1, 'c', NULL), (2, 'x', 5), (2, NULL, 5), (3, 'q', 7);
INSERT INTO t VALUES (1, 'a', 9);
DELETE FROM t WHERE g = 3;
UPDATE t SET s = 'z' WHERE s = 'x';
SELECT g, string_agg(s, ',' ORDER BY s), array_agg(n ORDER BY n DESC), count(*) FROM t GROUP BY g;
SELECT string_agg(s, ' | ' ORDER BY s DESC), array_agg(s ORDER BY s) FILTER (WHERE s IS NOT NULL) FROM t;
SELECT g, array_agg(g ORDER BY g) FROM t WHERE n > 100 GROUP BY g;
SELECT string_agg(s, '') FROM t WHERE false;
