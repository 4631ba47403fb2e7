-- json and jsonb: documents read from text, printed as PostgreSQL prints
-- them, taken apart by ->, ->>, #>, #>>, tested by @>, ?, and built by
-- jsonb_build_object, to_jsonb and jsonb_agg.
CREATE TABLE docs (id INT, j JSONB, t JSON, s TEXT);
INSERT INTO docs VALUES
  (1, '{"name": "ann", "age": 31, "tags": ["a", "b"], "addr": {"city": "Oslo", "zip": "0150"}}',
      '{"b": 1,   "a": [1, 2]}', 'x'),
  (2, '{"name": "bob", "age": 27.50, "tags": [], "addr": {"city": "Bergen"}, "name": "rob"}',
      '[1, {"k": null}]', 'y'),
  (3, '[1, 2, {"a": [3, 4]}, "s", null, true, 1e2, -0, 1.50]', '"plain"', 'z'),
  (4, 'null', 'null', NULL),
  (5, NULL, NULL, 'w'),
  (6, '{"a": {"b": {"c": [10, 20, 30]}}, "": 1, "aa": 2, "b": 3}', '{}', 'v');
SELECT id, j, t FROM docs;
SELECT id, j -> 'name', j ->> 'name', j -> 'addr' -> 'city', j -> 'addr' ->> 'city', j -> 'age' FROM docs;
SELECT id, j -> 2, j -> -1, j ->> 0, j -> 'tags' -> 0, j -> 'tags' ->> 1, t -> 'a', t ->> 'b', t -> 1 FROM docs;
SELECT id, j #> '{a,b,c}', j #>> '{a,b,c,1}', j #> '{addr,city}', j #>> '{2,a,0}', j #> '{}' FROM docs;
SELECT id, jsonb_typeof(j), json_typeof(t), jsonb_typeof(j -> 'age'), jsonb_typeof(j -> 'missing') FROM docs;
SELECT id FROM docs WHERE j @> '{"addr": {"city": "Oslo"}}';
SELECT id FROM docs WHERE j @> '{"tags": ["b"]}';
SELECT id, j @> '[1, 2]', j @> '1', '{"a": 1}'::jsonb <@ j, j ? 'name', j ? 's', j ?| ARRAY['x', 'age'], j ?& ARRAY['name', 'age'] FROM docs;
SELECT id, (j ->> 'age')::numeric + 1, (j -> 'age')::float8, (j -> 'age')::numeric FROM docs WHERE j ? 'age';
SELECT id, j || '{"new": 1}', j - 'name', j -> 'tags' || '["c"]' FROM docs WHERE jsonb_typeof(j) = 'object';
SELECT id, jsonb_array_length(j) FROM docs WHERE jsonb_typeof(j) = 'array';
-- Equality, grouping and DISTINCT on the canonical document.
SELECT j -> 'addr' AS a, count(*) FROM docs GROUP BY 1;
SELECT '{"b": 2, "a": 1}'::jsonb = '{"a": 1,"b":2}'::jsonb, '[1, 2]'::jsonb = '[2, 1]'::jsonb;
SELECT DISTINCT jsonb_typeof(j) FROM docs;
-- Building documents.
SELECT jsonb_build_object('id', id, 'name', j ->> 'name', 'n', NULL, 'd', DATE '2024-01-31', 's', s) FROM docs;
SELECT jsonb_build_array(id, s, 1.5, true, NULL, j -> 'tags'), to_jsonb(s), to_jsonb(id), to_json(s) FROM docs;
SELECT to_jsonb(ARRAY[1, 2, NULL]), to_jsonb(TIMESTAMP '2024-01-31 10:15:00'), to_jsonb(1.50::numeric), to_jsonb(true);
SELECT jsonb_agg(id), jsonb_agg(j ->> 'name' ORDER BY id DESC), json_agg(s ORDER BY s) FROM docs;
SELECT jsonb_typeof(j), jsonb_agg(id ORDER BY id), jsonb_object_agg(id, s) FROM docs GROUP BY 1;
-- Set-returning functions, in FROM and in the select list.
SELECT d.id, e.value FROM docs d, jsonb_array_elements(d.j -> 'tags') e;
SELECT id, jsonb_array_elements_text(j) AS v FROM docs WHERE jsonb_typeof(j) = 'array';
SELECT id, jsonb_object_keys(j) AS k FROM docs WHERE jsonb_typeof(j) = 'object';
SELECT * FROM jsonb_array_elements('[1, "a", {"b": null}]');
-- Changes.
UPDATE docs SET j = j || '{"age": 40}' WHERE id = 1;
DELETE FROM docs WHERE id = 3;
INSERT INTO docs VALUES (7, '{"name": "cy", "tags": ["b", "c"]}', '[]', 'u');
SELECT id, j ->> 'name', j -> 'age' FROM docs WHERE j ? 'name';
SELECT jsonb_agg(id ORDER BY id) FROM docs WHERE j @> '{"tags": ["b"]}';
SELECT d.id, count(*) FROM docs d, jsonb_array_elements(d.j -> 'tags') e GROUP BY d.id;
-- Bad input says where.
-- sluice: error invalid input syntax for type jsonb
SELECT '{"a": }'::jsonb;
-- sluice: error invalid input syntax for type json
SELECT '[1, 2'::json;
-- sluice: error cannot cast type integer to jsonb
SELECT 1::jsonb;
-- sluice: error cannot cast jsonb string to type integer
SELECT ('"x"'::jsonb)::int;
-- sluice: error operator does not exist: json = json
SELECT t = t FROM docs;
-- The json forms write their documents as PostgreSQL's json functions do.
CREATE TABLE kv (k TEXT, v INT);
INSERT INTO kv VALUES ('a', 1), ('b', 2), ('c', NULL);
SELECT json_build_object('a', 1, 'b', 'x', 'n', json_build_object('x', 1.50)), json_build_array(1, 'x', NULL, ARRAY[1,2]);
SELECT json_agg(v ORDER BY k), json_agg(k ORDER BY k), json_object_agg(k, v ORDER BY k) FROM kv;
SELECT to_json(ARRAY[1,2]), to_json(kv), to_json(ROW(1, ARRAY['a', NULL], 2.50)) FROM kv;
SELECT json_build_object('r', ROW(1, 'x')), json_build_array(ARRAY[1,2], '{"a":1}'::json);
SELECT jsonb_build_object('a', 1, 'b', 'x'), jsonb_agg(v ORDER BY v), jsonb_object_agg(k, v ORDER BY k) FROM kv;

-- row_to_json(record [, pretty]).
CREATE TABLE rj (a int, b text, c int[]);
INSERT INTO rj VALUES (1, 'x,"y"', '{1,2}'), (2, NULL, NULL);
SELECT row_to_json(rj) FROM rj;
SELECT row_to_json(rj, true) AS p FROM rj;
SELECT row_to_json(ROW(1, 'a')) AS r, row_to_json(x.*) AS x FROM (SELECT a, b FROM rj) AS x;
SELECT row_to_json(rj.*, false) AS f FROM rj;
