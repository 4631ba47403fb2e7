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

-- DISTINCT: each value once, in the value's order (NULL last, or first when descending).
CREATE TABLE d (k INT, a INT, s TEXT);
INSERT INTO d VALUES (1, 3, 'x'), (1, 1, 'y'), (1, 3, 'x'), (1, NULL, NULL), (2, 5, 'z'), (2, 5, 'z'), (3, NULL, NULL);
SELECT k, array_agg(DISTINCT a), array_agg(DISTINCT a ORDER BY a DESC), array_agg(a ORDER BY a), string_agg(DISTINCT s, ','), count(DISTINCT a) FROM d GROUP BY k;
SELECT array_agg(DISTINCT a), string_agg(DISTINCT s, '-' ORDER BY s DESC) FROM d;
SELECT array_agg(DISTINCT a ORDER BY a DESC NULLS LAST), array_agg(DISTINCT a ORDER BY a NULLS FIRST) FROM d;
SELECT k, string_agg(DISTINCT s, ',' ORDER BY s DESC NULLS LAST) FROM d GROUP BY k;
UPDATE d SET a = 7 WHERE a = 1;
DELETE FROM d WHERE k = 2 AND s = 'z';
INSERT INTO d VALUES (2, 4, 'w'), (1, 3, 'x');

-- Ordered by another expression than the value (keys unique within a group:
-- PostgreSQL leaves ties in scan order).
CREATE TABLE o (g INT, id INT, s TEXT, n INT);
INSERT INTO o VALUES (1, 3, 'c', 30), (1, 1, 'z', 10), (1, 2, NULL, 20), (1, NULL, 'k', NULL), (2, 5, 'e', 50), (2, 4, 'd', NULL);
SELECT g, string_agg(s, ',' ORDER BY id), array_agg(n ORDER BY id DESC), array_agg(s ORDER BY -id) FROM o GROUP BY g;
SELECT string_agg(s, '' ORDER BY n DESC) FILTER (WHERE g = 1), array_agg(id ORDER BY s) FROM o;
-- sluice: error in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list
SELECT string_agg(DISTINCT s, ',' ORDER BY id) FROM o;
UPDATE o SET id = 0 WHERE s = 'c';
DELETE FROM o WHERE s = 'z';
INSERT INTO o VALUES (2, 9, 'a', 1), (2, 6, NULL, 2);
-- Over a subquery with an ORDER BY (one way), in its order, as PostgreSQL
-- takes the rows: by a column the subquery shows, or one it does not.
CREATE TABLE ranked (id INT PRIMARY KEY, g INT, name TEXT, score INT);
INSERT INTO ranked VALUES (1, 1, 'zed', 30), (2, 1, 'amy', 10), (3, 2, 'bob', 20), (4, 1, 'kim', 40), (5, 2, NULL, 5);
UPDATE ranked SET score = 1 WHERE id = 4;
INSERT INTO ranked VALUES (6, 2, 'ann', 50);
DELETE FROM ranked WHERE id = 1;
SELECT string_agg(name, ',') FROM (SELECT name, id FROM ranked ORDER BY id) s;
SELECT array_agg(name) FROM (SELECT name FROM ranked ORDER BY score DESC) s;
SELECT g, string_agg(name, '/'), array_agg(score) FROM (SELECT g, name, score FROM ranked ORDER BY score) s GROUP BY g;
SELECT array_agg(id) FROM (SELECT id FROM ranked WHERE score > 5 ORDER BY g, score) s;
SELECT string_agg(name, ',') FROM (SELECT name FROM ranked ORDER BY name DESC) s;
-- ARRAY_AGG and STRING_AGG ordered with NULLs the other way.
CREATE TABLE nulls_order (g INT, x INT, s TEXT, o INT);
INSERT INTO nulls_order VALUES (1, 3, 'c', 1), (1, NULL, NULL, 2), (1, 1, 'a', NULL), (2, NULL, NULL, 5), (2, 2, 'b', 4), (3, NULL, NULL, NULL);
SELECT g, array_agg(x ORDER BY x NULLS FIRST), array_agg(x ORDER BY x DESC NULLS LAST), array_agg(x ORDER BY x NULLS LAST), array_agg(x ORDER BY x DESC NULLS FIRST) FROM nulls_order GROUP BY g;
SELECT g, array_agg(x ORDER BY o NULLS FIRST), array_agg(x ORDER BY o DESC NULLS LAST), string_agg(s, ',' ORDER BY o NULLS FIRST) FROM nulls_order GROUP BY g;
SELECT array_agg(s ORDER BY s NULLS FIRST), string_agg(s, '-' ORDER BY s DESC NULLS LAST) FROM nulls_order;
UPDATE nulls_order SET o = 0 WHERE x = 3;
INSERT INTO nulls_order VALUES (2, NULL, 'z', NULL);
SELECT g, array_agg(x ORDER BY o NULLS FIRST), array_agg(s ORDER BY o DESC NULLS LAST) FROM nulls_order GROUP BY g;
-- A separator computed from constants.
CREATE TABLE sep_t (id INT, v BYTEA, s TEXT);
INSERT INTO sep_t VALUES (1, 'abc', 'x'), (2, '\xff00', 'y'), (3, NULL, NULL);
SELECT string_agg(v, decode('ee', 'hex') ORDER BY v) FROM sep_t;
SELECT string_agg(s, repeat('-', 2) ORDER BY s), string_agg(s, '' || '+' ORDER BY s DESC) FROM sep_t;
INSERT INTO sep_t VALUES (4, 'zz', 'w');
-- sluice: error A string_agg() separator that is not a constant string is not supported yet
SELECT string_agg(s, s) FROM sep_t;
