-- UPDATE ... SET of an array's elements and slices, a composite's fields,
-- and several columns from one row or sub-SELECT: SET (a, b) = (...).
CREATE TYPE pair AS (x integer, y text);
CREATE TABLE arr (id integer PRIMARY KEY, a integer[], t text[], p pair, n integer);
INSERT INTO arr VALUES
  (1, '{1,2,3}', '{a,b,c}', ROW(1, 'one'), 10),
  (2, NULL, NULL, NULL, 20),
  (3, '{}', '{}', ROW(3, NULL), 30),
  (4, '{{1,2},{3,4}}', '{{a,b},{c,d}}', ROW(4, 'four'), 40);
SELECT id, a, t, p, n FROM arr;
SELECT id, array_dims(a) AS da, array_dims(t) AS dt FROM arr;

-- Elements: inside, past the end (NULLs fill the gap), before the start
-- (the lower bound moves), into NULL and empty arrays.
UPDATE arr SET a[2] = 20 WHERE id = 1;
UPDATE arr SET a[6] = 60, t[0] = 'zero' WHERE id = 1;
UPDATE arr SET a[-1] = -10 WHERE id = 1;
UPDATE arr SET a[5] = 5, t[2] = 'two' WHERE id IN (2, 3);
SELECT id, a, t FROM arr;
SELECT id, array_dims(a) AS da, array_lower(a, 1) AS la, array_dims(t) AS dt FROM arr;

-- Two dimensions: an element inside.
UPDATE arr SET a[2][1] = 30, t[1][2] = 'B' WHERE id = 4;
SELECT id, a, t FROM arr WHERE id = 4;
-- sluice: error array subscript out of range
UPDATE arr SET a[3][1] = 1 WHERE id = 4;
-- sluice: error wrong number of array subscripts
UPDATE arr SET a[1] = 1 WHERE id = 4;

-- Several elements of one column, and an expression over the old row.
UPDATE arr SET a[1] = n, a[2] = a[1] + 100 WHERE id = 3;
SELECT id, a FROM arr WHERE id = 3;

-- Slices: inside, growing the array, bounds left out, into a NULL array.
INSERT INTO arr VALUES (5, '{1,2,3,4,5}', '{a,b,c,d,e}', NULL, 50), (6, NULL, NULL, NULL, 60);
UPDATE arr SET a[2:3] = '{20,30}' WHERE id = 5;
UPDATE arr SET t[4:7] = ARRAY['D', 'E', 'F', 'G'] WHERE id = 5;
SELECT id, a, t FROM arr WHERE id = 5;
UPDATE arr SET a[:2] = '{-1,-2}', t[6:] = '{f,g}' WHERE id = 5;
SELECT id, a, t FROM arr WHERE id = 5;
UPDATE arr SET a[3:4] = '{7,8,9}' WHERE id = 6;
SELECT id, a, array_dims(a) AS d FROM arr WHERE id = 6;
UPDATE arr SET a[1:2][1:1] = '{{10},{20}}' WHERE id = 4;
SELECT id, a FROM arr WHERE id = 4;
-- A NULL slice leaves the array as it was.
UPDATE arr SET a[1:2] = NULL WHERE id = 5;
SELECT id, a FROM arr WHERE id = 5;
-- sluice: error source array too small
UPDATE arr SET a[1:3] = '{1}' WHERE id = 5;
-- sluice: error must provide both boundaries
UPDATE arr SET t[:2] = '{1,2}' WHERE id = 6;
-- sluice: error must not be null
UPDATE arr SET a[NULL] = 1 WHERE id = 5;
-- sluice: error upper bound cannot be less than lower bound
UPDATE arr SET a[3:2] = '{1}' WHERE id = 5;

-- Fields of a composite column, also of a NULL one.
UPDATE arr SET p.y = 'ONE' WHERE id = 1;
UPDATE arr SET p.x = 2, p.y = 'two' WHERE id = 2;
UPDATE arr SET p.x = (p).x * 10 WHERE id IN (3, 4);
SELECT id, p, (p).x AS x, (p).y AS y FROM arr;
-- sluice: error there is no such column in data type pair
UPDATE arr SET p.z = 1;
-- sluice: error is not a composite type
UPDATE arr SET n.z = 1;

-- Several columns at once: from a row, and from a sub-SELECT's one row
-- (NULLs when it has none).
CREATE TABLE src (id integer, v integer, w text);
INSERT INTO src VALUES (1, 100, 'x'), (2, 200, 'y');
UPDATE arr SET (n, a) = (n + 1, ARRAY[n]) WHERE id = 1;
UPDATE arr SET (n, t) = ROW(n * 2, '{q}') WHERE id = 2;
UPDATE arr SET (n, p) = (SELECT v, ROW(v, w)::pair FROM src WHERE src.id = arr.id) WHERE id <= 3;
SELECT id, n, a, t, p FROM arr;
UPDATE arr SET (n, a[1]) = (DEFAULT, 5) WHERE id = 5;
SELECT id, n, a FROM arr WHERE id = 5;
-- sluice: error number of columns does not match number of values
UPDATE arr SET (n, a) = (1, '{1}', 2);
-- sluice: error number of columns does not match number of values
UPDATE arr SET (n, a) = (SELECT 1);
-- sluice: error more than one row returned by a subquery
UPDATE arr SET (n, p) = (SELECT v, NULL::pair FROM src);

-- ON CONFLICT DO UPDATE takes the same forms.
INSERT INTO arr VALUES (1, '{9}', NULL, NULL, 0)
  ON CONFLICT (id) DO UPDATE SET a[2] = excluded.n, (n, t) = (excluded.n + 7, '{z}');
SELECT id, n, a, t FROM arr WHERE id = 1;

-- A view over the table follows every change.
CREATE VIEW arr_view AS SELECT id, a[1] AS first, cardinality(a) AS c, (p).y AS y FROM arr;
SELECT * FROM arr_view;
UPDATE arr SET a[1] = 1000, p.y = 'changed' WHERE id <= 2;
SELECT * FROM arr_view;

-- INSERT into parts of a column: the rest of it is NULL.
CREATE TABLE ins (id integer PRIMARY KEY, a integer[], p pair);
INSERT INTO ins (id, a[1:2]) VALUES (1, '{6,7,8}');
INSERT INTO ins (id, a[3], a[1], p.y) VALUES (2, 3, 1, 'why');
SELECT id, a, p FROM ins;
INSERT INTO ins (id, a[1:2]) VALUES (1, '{16,17}') ON CONFLICT (id)
  DO UPDATE SET a[1] = excluded.a[1], a[3] = excluded.a[3];
SELECT id, a, p FROM ins;
-- sluice: error specified more than once
INSERT INTO ins (id, a, a[1]) VALUES (3, '{1}', 2);

-- A VALUES column of rows may hold NULL.
SELECT * FROM (VALUES (ROW(1, 'a')::pair), (NULL)) AS v (p);
