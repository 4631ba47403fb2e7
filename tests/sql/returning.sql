-- INSERT, UPDATE and DELETE with RETURNING, DELETE ... USING, UPDATE ...
-- FROM, and WITH queries that change data: each statement's rows and the
-- tables it changed are checked against PostgreSQL's.
CREATE TABLE items (id INT PRIMARY KEY, name TEXT, qty INT, price NUMERIC(10,2));
CREATE TABLE log (op TEXT, id INT, qty INT);
CREATE TABLE bag (a INT, b TEXT);
INSERT INTO items VALUES (1, 'apple', 10, 0.50), (2, 'pear', 0, 0.75), (3, 'fig', 5, 2.00);
INSERT INTO bag VALUES (1, 'x'), (1, 'x'), (2, 'y'), (3, NULL);
INSERT INTO items VALUES (4, 'kiwi', 7, 1.25) RETURNING *;
INSERT INTO items (id, name) VALUES (5, 'plum'), (6, 'lime') RETURNING id, name, qty IS NULL AS no_qty;
INSERT INTO items AS i SELECT id + 10, upper(name), qty * 2, price FROM items WHERE qty > 5 RETURNING i.id, i.name || '!' AS shout, qty * price AS value;
UPDATE items SET qty = qty + 1 WHERE qty IS NOT NULL AND id < 10 RETURNING id, qty;
UPDATE items AS it SET price = price * 2 WHERE it.name LIKE '%e%' RETURNING it.*;
DELETE FROM items WHERE qty IS NULL RETURNING name;
DELETE FROM bag WHERE a = 1 RETURNING *;
SELECT * FROM items;
-- USING and FROM: a row changes once, however many rows it meets.
INSERT INTO bag VALUES (2, 'y'), (4, 'w');
DELETE FROM bag USING items WHERE items.id = bag.a AND items.qty > 1 RETURNING bag.a, bag.b;
UPDATE items SET qty = items.qty + b.a FROM bag b WHERE b.a * 3 = items.id RETURNING items.id, items.qty;
UPDATE items SET name = name || '+' FROM (VALUES (3), (3), (4)) v(k) WHERE v.k = items.id;
-- RETURNING reads FROM's and USING's columns too, the first row each
-- changed row met; RETURNING * is the table's columns, then theirs.
UPDATE items SET qty = items.qty + b.a FROM bag b WHERE b.a = items.id RETURNING items.id, items.qty, b.b, qty * 2 AS dbl;
UPDATE items AS i SET name = i.name || b.b FROM bag b WHERE b.a + 1 = i.id AND b.b IS NOT NULL RETURNING i.*, b.*, name;
UPDATE items SET qty = 0 FROM (VALUES (1, 'one')) v(k, word) WHERE v.k = items.id RETURNING *;
DELETE FROM bag USING items WHERE items.id = bag.a + 10 RETURNING bag.a, items.name;
DELETE FROM bag USING (VALUES (4, 'four')) v(k, word) WHERE v.k = bag.a RETURNING *;
SELECT * FROM items;
SELECT * FROM bag;
-- WITH queries that change data: every part sees the tables as they were.
WITH gone AS (DELETE FROM items WHERE qty < 8 RETURNING id, qty)
INSERT INTO log SELECT 'delete', id, qty FROM gone RETURNING *;
WITH moved AS (UPDATE items SET qty = 0 WHERE id > 10 RETURNING id, qty)
SELECT count(*), sum(qty), (SELECT count(*) FROM items WHERE qty = 0) AS zero_before FROM moved;
WITH a AS (INSERT INTO log VALUES ('note', 100, NULL) RETURNING op), b AS (DELETE FROM bag WHERE b IS NULL)
SELECT * FROM a;
WITH RECURSIVE t AS (INSERT INTO log SELECT 'copy', id, qty FROM t2 RETURNING *),
  t2 AS (UPDATE items SET qty = qty + 100 RETURNING *)
SELECT op, id, qty FROM t UNION ALL SELECT 'new', id, qty FROM t2;
SELECT * FROM log;
SELECT * FROM items;
SELECT * FROM bag;
-- sluice: error column "nope" does not exist
INSERT INTO items VALUES (99, 'x', 1, 1) RETURNING nope;
-- sluice: error column "qtyy" of relation "items" does not exist (did you mean qty?)
UPDATE items SET qtyy = 1 WHERE id = 1 RETURNING id;
-- sluice: error relation "nothere" does not exist
WITH d AS (DELETE FROM nothere RETURNING *) SELECT * FROM d;
-- INSERT ... ON CONFLICT: on the primary key, or on the columns named.
INSERT INTO items VALUES (1, 'dup', 1, 1), (50, 'new', 1, 1), (50, 'again', 2, 2) ON CONFLICT (id) DO NOTHING RETURNING *;
INSERT INTO items VALUES (3, 'dup', 1, 1), (60, 'six', 1, 1) ON CONFLICT DO NOTHING;
INSERT INTO items AS i VALUES (3, 'fig3', 9, 9), (4, 'kiwi4', 9, 9), (70, 'seven', 7, 7)
  ON CONFLICT (id) DO UPDATE SET qty = i.qty + excluded.qty, name = excluded.name || '<' || i.name
  WHERE i.id <> 4 RETURNING *;
SELECT * FROM items;
-- sluice: error ON CONFLICT DO UPDATE command cannot affect row a second time
INSERT INTO items VALUES (80, 'a', 1, 1), (80, 'b', 1, 1) ON CONFLICT (id) DO UPDATE SET qty = 0;
-- sluice: error there is no unique or exclusion constraint matching the ON CONFLICT specification
INSERT INTO items VALUES (90, 'a', 1, 1) ON CONFLICT (name) DO NOTHING;
CREATE TABLE kv (k INT, v TEXT);
CREATE UNIQUE INDEX kv_k ON kv (k);
INSERT INTO kv VALUES (1, 'one'), (2, 'two'), (NULL, 'none');
INSERT INTO kv VALUES (1, 'uno'), (3, 'tres'), (NULL, 'nada') ON CONFLICT (k) DO UPDATE SET v = kv.v || '/' || excluded.v RETURNING k, v;
WITH up AS (INSERT INTO kv VALUES (2, 'dos') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *)
SELECT u.k, u.v, (SELECT v FROM kv WHERE kv.k = u.k) AS before FROM up u;
INSERT INTO kv (k) SELECT g FROM generate_series(0, 4) g ON CONFLICT (k) DO UPDATE SET v = coalesce(excluded.v, 'k only') || '/' || kv.v RETURNING *;
WITH src(k, v) AS (VALUES (1, 'w1'), (7, 'w7')) INSERT INTO kv SELECT * FROM src ON CONFLICT (k) DO NOTHING RETURNING k, v;
SELECT * FROM items;
SELECT * FROM kv;

-- A view takes no changes yet (this one none in PostgreSQL either), nor
-- may a table have rules.
CREATE VIEW kv_view AS SELECT DISTINCT k, v FROM kv;
-- sluice: error INSERT, UPDATE or DELETE on a view is not supported yet
INSERT INTO kv_view VALUES (8, 'ocho');
-- sluice: error INSERT, UPDATE or DELETE on a view is not supported yet
WITH t AS (INSERT INTO kv VALUES (9, 'nueve') RETURNING k) INSERT INTO kv_view SELECT k, 'x' FROM t RETURNING *;
-- sluice: error CREATE RULE is not supported yet
CREATE RULE kv_del AS ON DELETE TO kv DO INSTEAD NOTHING;
SELECT * FROM kv;

-- PostgreSQL changes a row at most once in a statement, keeping one of the
-- changes of parts that change it twice.
CREATE TABLE colors (k INT PRIMARY KEY, v TEXT);
INSERT INTO colors VALUES (1, 'Red'), (2, 'Blue'), (3, 'Gray');
-- sluice: error A statement whose parts change the same row of colors twice (PostgreSQL keeps one of the changes) is not supported yet
WITH simpletup AS (SELECT 2 k, 'Green' v),
upsert_cte AS (
  INSERT INTO colors VALUES (2, 'Blue') ON CONFLICT (k) DO
    UPDATE SET (k, v) = (SELECT k, v FROM simpletup WHERE simpletup.k = colors.k)
    RETURNING k, v)
INSERT INTO colors VALUES (2, 'Red') ON CONFLICT (k) DO
UPDATE SET (k, v) = (SELECT k, v FROM upsert_cte WHERE upsert_cte.k = colors.k)
RETURNING k, v;
-- sluice: error A statement whose parts change the same row of colors twice
WITH d AS (DELETE FROM colors WHERE k = 3 RETURNING *) UPDATE colors SET v = 'Black' WHERE k = 3 RETURNING *;
-- (PostgreSQL made them; the table starts over.)
DELETE FROM colors;
INSERT INTO colors VALUES (1, 'Red'), (2, 'Blue'), (3, 'Gray');
-- Parts that change different rows.
WITH d AS (DELETE FROM colors WHERE k = 1 RETURNING *) UPDATE colors SET v = v || '!' WHERE k <> 1 RETURNING *;
SELECT * FROM colors;
