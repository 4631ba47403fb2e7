-- CHECK constraints: a row that makes one false is refused, and the
-- statement that brings it fails with PostgreSQL's error; TRUE and NULL
-- pass. Unnamed ones are named as PostgreSQL names them.
CREATE TABLE item (id int PRIMARY KEY, price numeric(8,2) CHECK (price > 0), qty int CHECK (qty >= 0),
  lo int, hi int, CHECK (lo <= hi), CONSTRAINT sane_qty CHECK (qty < 1000));
INSERT INTO item VALUES (1, 9.99, 3, 1, 2), (2, 0.50, 0, NULL, 5), (3, NULL, NULL, 4, 4);
-- sluice: error new row for relation "item" violates check constraint "item_price_check"
INSERT INTO item VALUES (4, -1, 1, 1, 1);
-- sluice: error new row for relation "item" violates check constraint "item_check"
INSERT INTO item VALUES (5, 1, 1, 3, 2);
-- sluice: error new row for relation "item" violates check constraint "sane_qty"
INSERT INTO item VALUES (6, 1, 5000, 1, 1);
-- A failing row fails the whole statement: none of its rows goes in.
-- sluice: error new row for relation "item" violates check constraint "item_qty_check"
INSERT INTO item VALUES (7, 1, 1, 1, 1), (8, 1, -1, 1, 1);
SELECT * FROM item;
SELECT count(*), sum(qty) FROM item;
-- An UPDATE that would break one changes nothing.
-- sluice: error new row for relation "item" violates check constraint "item_check"
UPDATE item SET lo = hi + 1 WHERE id = 1;
UPDATE item SET qty = qty + 1 WHERE qty IS NOT NULL;
-- sluice: error new row for relation "item" violates check constraint "item_price_check"
INSERT INTO item VALUES (2, 0, 1, 1, 1) ON CONFLICT (id) DO UPDATE SET price = excluded.price;
INSERT INTO item VALUES (2, 3, 1, 1, 1) ON CONFLICT (id) DO UPDATE SET price = excluded.price;
SELECT * FROM item;
DELETE FROM item WHERE id = 3;
SELECT * FROM item;

-- Without a primary key; a check over an expression, and a NULL result.
CREATE TABLE word (w text CHECK (length(w) BETWEEN 1 AND 5 AND w = lower(w)), n int);
INSERT INTO word VALUES ('abc', 1), ('de', 2), (NULL, 3);
-- sluice: error new row for relation "word" violates check constraint "word_w_check"
INSERT INTO word VALUES ('ABC', 4);
-- sluice: error new row for relation "word" violates check constraint "word_w_check"
INSERT INTO word VALUES ('toolong', 5);
SELECT w, n FROM word;
SELECT count(*) FROM word WHERE w IS NOT NULL;
-- sluice: error new row for relation "word" violates check constraint "word_w_check"
UPDATE word SET w = upper(w) WHERE n = 1;
UPDATE word SET w = w || 'x' WHERE n = 2;
DELETE FROM word WHERE n = 3;
SELECT w, n FROM word;

-- Names taken get a number; the check must be boolean.
CREATE TABLE twice (a int CHECK (a > 0) CHECK (a < 10), b int, CHECK (a <> b), CHECK (b > 0 OR b IS NULL));
INSERT INTO twice VALUES (1, 2), (9, NULL);
-- sluice: error new row for relation "twice" violates check constraint "twice_a_check1"
INSERT INTO twice VALUES (10, 2);
-- sluice: error new row for relation "twice" violates check constraint "twice_check"
INSERT INTO twice VALUES (3, 3);
-- sluice: error new row for relation "twice" violates check constraint "twice_b_check"
INSERT INTO twice VALUES (3, -3);
SELECT * FROM twice;
-- sluice: error argument of CHECK must be type boolean, not type integer
CREATE TABLE bad (a int CHECK (a + 1));
-- sluice: error constraint "c" for relation "bad2" already exists
CREATE TABLE bad2 (a int, CONSTRAINT c CHECK (a > 0), CONSTRAINT c CHECK (a < 5));

-- The failing row is written as PostgreSQL's output writes it.
CREATE TABLE flags (on_ boolean, b bytea, c char(3), CHECK (on_ OR octet_length(b) > 1));
INSERT INTO flags VALUES (true, '\x00', 'a'), (false, '\x00ff', 'b');
-- sluice: error (failing row contains (f, \x01, c  ))
INSERT INTO flags VALUES (false, '\x01', 'c');
SELECT * FROM flags;
