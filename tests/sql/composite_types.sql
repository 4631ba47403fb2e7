-- Composite types: CREATE TYPE name AS (field type, ...) names a ROW type,
-- for columns, arrays of it and casts; (row).field selects a field; a
-- table's name is its rows' type.
CREATE TYPE comptype AS (f1 int, f2 text);
CREATE TABLE comptable (c1 comptype, c2 comptype[]);
INSERT INTO comptable VALUES (row(1,'foo'), array[row(2,'bar')::comptype, row(3,'baz')::comptype]);
INSERT INTO comptable VALUES (NULL, NULL), (row(NULL, 'n'), array[row(4, NULL)::comptype]);
SELECT * FROM comptable;
SELECT c2[2].f2 FROM comptable;
SELECT (c1).f1, (c1).f2 FROM comptable;
SELECT (c2[1]).f1 + 1 AS next FROM comptable;
SELECT (row(5, 'x')::comptype).f2;
CREATE TABLE pts (id int PRIMARY KEY, p comptype);
INSERT INTO pts VALUES (1, row(1, 'a')), (2, row(2, 'b')), (3, NULL), (4, row(2, 'a'));
SELECT id, (p).f1 + 1 FROM pts;
SELECT (p).f2, count(*), sum((p).f1) FROM pts GROUP BY (p).f2;
SELECT a.id, b.id FROM pts a JOIN pts b ON (a.p).f1 = (b.p).f1 AND a.id < b.id;
SELECT row(id, 'z')::comptype FROM pts;
UPDATE pts SET p = row(9, 'u') WHERE id = 3;
SELECT id, (p).f1 FROM pts WHERE (p).f2 = 'u';
DELETE FROM pts WHERE (p).f1 = 2;
SELECT * FROM pts;
INSERT INTO pts VALUES (5, row(7, 'r')) RETURNING (p).f2, p;
-- sluice: error column "f3" not found in data type
SELECT (p).f3 FROM pts;
-- sluice: error column notation .f1 applied to type integer, which is not a composite type
SELECT (id).f1 FROM pts;
-- a table's rows' type
CREATE TABLE holder (h pts);
INSERT INTO holder VALUES (row(1, row(2, 'x')));
SELECT (h).id, ((h).p).f2 FROM holder;
DROP TABLE holder;
-- a cast to a composite type gives its field names
CREATE TYPE address AS (street VARCHAR, city VARCHAR);
SELECT (row('a', 'b')::address).city, (CAST(row('c', 'd') AS address)).street;
CREATE TABLE person (id bigint PRIMARY KEY, name text, home address, past address ARRAY);
INSERT INTO person VALUES (4, 'dee', row('S', 'Rome'), array[row('T', 'Pisa')::address]) RETURNING (home).city, past;
INSERT INTO person (id, home) VALUES (5, NULL), (6, row(NULL, 'Oslo'));
UPDATE person SET home = row('N', 'Oslo') WHERE id = 4 RETURNING (home).city, past[1].street;
SELECT (home).city, count(*) FROM person GROUP BY (home).city;
-- from PostgreSQL's text of a record
SELECT ('(Elm 2,Oslo)'::address).city, ('(,"a, b ""c""")'::address).city, ('( x ,)'::address).street IS NULL;
SELECT '{"(A,B)","(C,)"}'::address[];
INSERT INTO person (id, home) VALUES (7, '(Q,Lima)');
SELECT id, (home).city FROM person WHERE id = 7;
-- sluice: error malformed record literal
SELECT '(1,2,3)'::address;
-- sluice: error malformed record literal
SELECT '(1'::address;
DROP TABLE person;
DROP TYPE address;
DROP TABLE comptable;
DROP TABLE pts;
DROP TYPE comptype;
-- An array of rows written with its bounds: one dimension, from 1 (other
-- lower bounds are not kept yet).
CREATE TYPE pair8 AS (q1 INT8, q2 INT8);
SELECT '[1:2]={"(1,2)","(3,)"}'::pair8[];
-- sluice: error Lower bounds of an array of
SELECT '[5:5]={"(42,)"}'::pair8[];
