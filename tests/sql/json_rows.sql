-- Documents as rows: json(b)_each, json(b)_populate_record(set) and
-- json(b)_to_record(set) in FROM (a column per field), and unnest() of an
-- array of a composite type, which PostgreSQL spreads the same way; over
-- rows that come, change and go.
CREATE TYPE pair AS (k TEXT, v INT);
CREATE TYPE person AS (name TEXT, age INT, tags TEXT[], home pair, meta JSONB);
CREATE TABLE d (id INT PRIMARY KEY, j JSONB, t JSON, ps pair[]);
INSERT INTO d VALUES
  (1, '{"name": "ann", "age": 31, "tags": ["a", "b"], "home": {"k": "oslo", "v": 1}, "meta": {"x": [1]}}',
      '{"b": 1, "a": [1, 2], "b": "dup"}', ARRAY[ROW('a', 1)::pair, ROW('b', 2)::pair]),
  (2, '{"name": "bob", "age": "27", "extra": true}', '{"name": null}', ARRAY[NULL::pair]),
  (3, '[{"name": "cy", "age": 5}, {"tags": []}, {"age": null}]', '[{"k": "z", "v": 9}]', NULL),
  (4, '{}', '{}', '{}');
SELECT id, e.key, e.value FROM d, jsonb_each(d.j) AS e WHERE jsonb_typeof(j) = 'object';
SELECT id, key, value FROM d, jsonb_each_text(d.j) WHERE jsonb_typeof(j) = 'object';
SELECT id, key, value FROM d, json_each(d.t) WHERE json_typeof(t) = 'object';
SELECT id, e.* FROM d, json_each_text(d.t) AS e(name, val) WHERE json_typeof(t) = 'object';
SELECT * FROM jsonb_each('{"a": 1, "b": [1, 2], "c": null}');
SELECT id, p.* FROM d, jsonb_populate_record(NULL::person, d.j) AS p WHERE jsonb_typeof(j) = 'object';
SELECT id, p.name, p.age FROM d, jsonb_populate_record(ROW('base', 99, NULL, NULL, NULL)::person, d.j) AS p WHERE jsonb_typeof(j) = 'object';
SELECT id, p.* FROM d, jsonb_populate_recordset(NULL::pair, d.j) AS p WHERE jsonb_typeof(j) = 'array';
SELECT id, r.* FROM d, jsonb_to_recordset(d.j) AS r(name TEXT, tags TEXT[], age INT) WHERE jsonb_typeof(j) = 'array';
SELECT id, r.* FROM d, json_to_record(d.t) AS r(a INT[], b TEXT, name TEXT) WHERE json_typeof(t) = 'object';
SELECT * FROM jsonb_to_record('{"a": 1, "b": [[1, 2], [3, 4]], "c": {"k": "x"}, "d": "s", "e": {"q": 1}}') AS x(a INT, b INT[], c pair, d TEXT, e JSONB);
SELECT * FROM json_populate_recordset(NULL::pair, '[{"k": "a", "v": 1}, {"v": 2}]');
SELECT * FROM jsonb_populate_record(NULL::record, '{"x": 776}') AS (x INT, y INT);
SELECT id, u.* FROM d, unnest(d.ps) AS u;
SELECT * FROM unnest(ARRAY[ROW('a', 1)::pair, ROW('b', 2)::pair]) WITH ORDINALITY;
-- In the select list, a composite value is one column.
SELECT id, jsonb_each(j) FROM d WHERE id = 1;
SELECT id, unnest(ps), (unnest(ps)).v FROM d;
UPDATE d SET j = '{"name": "ann", "age": 32}' WHERE id = 1;
DELETE FROM d WHERE id = 2;
INSERT INTO d VALUES (5, '[{"name": "dee", "tags": ["x"]}]', '{"a": [3]}', ARRAY[ROW('e', 5)::pair]);
SELECT id, p.* FROM d, jsonb_populate_recordset(NULL::person, d.j) AS p WHERE jsonb_typeof(j) = 'array';
SELECT id, e.key FROM d, jsonb_each(d.j) AS e WHERE jsonb_typeof(j) = 'object';
SELECT id, u.* FROM d, unnest(d.ps) AS u;
-- sluice: error a column definition list is required for functions returning "record"
SELECT * FROM jsonb_to_record('{"a": 1}');
-- sluice: error a column definition list is only allowed for functions returning "record"
SELECT * FROM jsonb_each('{"a": 1}') AS x(a TEXT, b JSONB);
-- sluice: error cannot call jsonb_each on a non-object
SELECT * FROM jsonb_each('[1]');
-- sluice: error cannot call jsonb_populate_record on an array
SELECT * FROM jsonb_populate_record(NULL::pair, '[1]');
-- sluice: error argument of jsonb_populate_recordset must be an array of objects
SELECT * FROM jsonb_populate_recordset(NULL::pair, '[1]');
-- sluice: error invalid input syntax for type integer
SELECT * FROM jsonb_to_record('{"a": "x"}') AS r(a INT);
