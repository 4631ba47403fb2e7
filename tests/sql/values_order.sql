-- A query over VALUES alone takes its rows in the order they are listed,
-- as PostgreSQL scans them: array_agg and string_agg without ORDER BY,
-- ARRAY(VALUES ...) and LIMIT without ORDER BY follow it, also where the
-- rest of the query reads tables that change.
CREATE TABLE lim (g INT, q INT);
INSERT INTO lim VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO lim VALUES (2, 5);
DELETE FROM lim WHERE g = 1;
UPDATE lim SET q = 7 WHERE g = 3;
SELECT array_agg(b) FROM (VALUES (1, 5), (1, 4), (0, 3)) v(a, b);
SELECT grouping(a), a, array_agg(b) FROM (VALUES (1, 1), (1, 4), (1, 5), (3, 1), (3, 2)) v(a, b) GROUP BY ROLLUP (a) ORDER BY a;
SELECT array_agg(b), string_agg(b::text, ',') FROM (VALUES (3, 5), (1, 4), (2, 9), (0, 1)) v(a, b) WHERE a <= (SELECT max(g) FROM lim);
SELECT b FROM (VALUES (3, 5), (1, 4), (2, 9)) v(a, b) WHERE a < (SELECT count(*) FROM lim) LIMIT 2;
SELECT ARRAY(VALUES (3), (1), (2));
