-- INSERT ... VALUES of several rows: each item goes to its column's type on
-- its own, as in PostgreSQL, not first to a type common to the rows; and a
-- value too long for a CHAR(n) or VARCHAR(n) column is refused, not cut.
CREATE TABLE w (id int PRIMARY KEY, s text, x int, v varchar(3), c char(4), m money, n numeric(6,2), d date);
INSERT INTO w (id, s, x) VALUES (1, 'abc', 1), (2, 5, 2.5);
INSERT INTO w (id, s) VALUES (3, 'x'), (4, 7), (5, NULL);
INSERT INTO w (id, m) VALUES (6, '$1,234.50'), (7, 12.345);
INSERT INTO w (id, n, d) VALUES (8, '12.345', '2024-02-29'), (9, 7, '2024-03-01'::date + 1);
INSERT INTO w (id, x) VALUES (10, DEFAULT), (11, '42');
INSERT INTO w (id, c) VALUES (12, 'ab'), (13, 12);
INSERT INTO w VALUES (14, 'all', 3, 'abc', 'wxyz', 1, 1.5, '2020-01-01'), (15, 1.25, '8', 'q', 'r', '$2.00', '3.333', NULL);
SELECT * FROM w;
SELECT s, x + 1 AS x1, length(s) FROM w WHERE id < 6;
-- refused, as PostgreSQL refuses them
INSERT INTO w (id, x) VALUES (20, 1), (21, 'zz');
INSERT INTO w (id, v) VALUES (22, 'abcd');
INSERT INTO w (id, v) VALUES (23, 'ab'), (24, 'abcd');
INSERT INTO w (id, v) VALUES (25, 1234);
INSERT INTO w (id, c) VALUES (26, 'abcde');
INSERT INTO w (id, v) SELECT 27, 'long';
-- trailing spaces beyond the length are cut, not refused
INSERT INTO w (id, v, c) VALUES (30, 'ab    ', 'wxyz  '), (31, 'é', 'ü');
SELECT id, v, c, length(v) FROM w WHERE id >= 20;
-- under ON CONFLICT, in order
INSERT INTO w (id, s) VALUES (40, 1), (40, 'second') ON CONFLICT (id) DO NOTHING;
INSERT INTO w (id, s) VALUES (41, 'a'), (40, 2) ON CONFLICT (id) DO UPDATE SET s = excluded.s || '!';
SELECT id, s FROM w WHERE id >= 40;
UPDATE w SET v = 'abc' WHERE id = 1;
UPDATE w SET v = 'abcd' WHERE id = 2;
SELECT id, v FROM w WHERE id < 3;
