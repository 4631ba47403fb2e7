-- Editing jsonb along a path (jsonb_set, jsonb_set_lax, jsonb_insert, #-),
-- deleting keys, subscripts (j['a'][0]), the function forms of the
-- operators, jsonb_pretty, strip_nulls and json(b)_object, over documents
-- that come, change and go.
CREATE TABLE d (id INT PRIMARY KEY, j JSONB, t JSON, p TEXT[], k TEXT);
INSERT INTO d VALUES
  (1, '{"a": 1, "b": {"c": [1, 2, 3]}, "n": null}', '{"x": null, "y": [1, {"z": null}]}', '{b,c,1}', 'a'),
  (2, '[1, [2, 3], {"a": null}]', '[null, {"a": null, "b": "x\u0041"}]', '{1,0}', '1'),
  (3, '{}', '{}', '{a}', 'zz'),
  (4, '[]', '[]', '{0}', NULL),
  (5, NULL, NULL, NULL, 'b');
SELECT id, jsonb_set(j, '{a}', '9'), jsonb_set(j, '{b,c,1}', '"x"'), jsonb_set(j, '{new}', '[1]', false) FROM d WHERE jsonb_typeof(j) = 'object';
SELECT id, jsonb_set(j, p, '{"r": true}'), jsonb_set(j, p, '0', false), jsonb_insert(j, '{0}', '"f"'), jsonb_insert(j, '{-1}', '"l"', true) FROM d WHERE jsonb_typeof(j) = 'array';
SELECT id, jsonb_set(j, '{9}', '9'), jsonb_set(j, '{-9}', '9'), jsonb_set(j, '{1,5}', '5'), jsonb_set(j, '{}', '1') FROM d WHERE jsonb_typeof(j) = 'array';
SELECT id, jsonb_set(j, p, to_jsonb(k)), jsonb_set_lax(j, p, NULL), jsonb_set_lax(j, p, NULL, true, 'delete_key'), jsonb_set_lax(j, p, NULL, true, 'return_target') FROM d;
SELECT id, jsonb_insert(j, '{q}', '"new"'), jsonb_insert(j, '{b,c,0}', '0'), jsonb_insert(j, '{b,c,2}', '2.5', true) FROM d WHERE id IN (1, 3);
SELECT id, j #- '{b,c,0}', j #- p, j #- '{-1}', j #- '{}' FROM d;
SELECT id, j - k, j - ARRAY['a', 'b'], jsonb_delete(j, 'a', 'n'), jsonb_delete_path(j, '{b,c}') FROM d WHERE jsonb_typeof(j) = 'object';
SELECT id, j['a'], j['b']['c'][1], j['b']['c']['-1'], j[k], j[0], j[1][0] FROM d;
SELECT id, jsonb_extract_path(j, 'b', 'c'), jsonb_extract_path_text(j, 'b', 'c', '2'), json_extract_path(t, 'y', '1'), json_extract_path_text(t, 'y', '0') FROM d;
SELECT id, jsonb_exists(j, k), jsonb_exists_any(j, ARRAY['a', 'x']), jsonb_exists_all(j, '{a,b}'), jsonb_contains(j, '{"a": 1}'), jsonb_contained('{"a": 1}', j) FROM d;
SELECT id, jsonb_strip_nulls(j), json_strip_nulls(t), jsonb_pretty(j) FROM d;
SELECT jsonb_object('{a,1,b,NULL}'), jsonb_object('{{a,1},{b,2}}'), json_object('{a,b}', '{1,2}'), json_object('{}'), jsonb_object(ARRAY['k', k], ARRAY['v', 'w']) FROM d WHERE id = 1;
SELECT jsonb_pretty('[]'), jsonb_pretty('5'), jsonb_pretty('{"a": {}, "b": [[]]}');
UPDATE d SET j = jsonb_set(j, '{b,c}', '[7]') WHERE id = 1;
DELETE FROM d WHERE id = 2;
INSERT INTO d VALUES (6, '{"a": {"a": {"a": 1}}}', '{"a": [null]}', '{a,a,a}', 'a');
SELECT id, jsonb_set(j, p, '2'), j #- p, j['a']['a'], jsonb_strip_nulls(j), json_strip_nulls(t) FROM d;
-- sluice: error cannot set path in scalar
SELECT jsonb_set('5', '{a}', '1');
-- sluice: error cannot delete path in scalar
SELECT '5'::jsonb #- '{a}';
-- sluice: error cannot delete from scalar
SELECT '"s"'::jsonb - '{a}'::text[];
-- sluice: error path element at position 2 is null
SELECT jsonb_set(j, '{a,NULL}', '2') FROM d WHERE id = 1;
-- sluice: error path element at position 1 is not an integer: "x"
SELECT jsonb_set('[1]', '{x}', '2');
-- sluice: error cannot replace existing key
SELECT jsonb_insert(j, '{a}', '2') FROM d WHERE id = 1;
-- sluice: error JSON value must not be null
SELECT jsonb_set_lax(j, '{a}', NULL, true, 'raise_exception') FROM d WHERE id = 1;
-- sluice: error null_value_treatment must be
SELECT jsonb_set_lax(j, '{a}', NULL, true, 'bogus') FROM d WHERE id = 1;
-- sluice: error array must have even number of elements
SELECT jsonb_object('{a,b,c}');
-- sluice: error mismatched array dimensions
SELECT json_object('{a,b}', '{1}');
-- sluice: error null value not allowed for object key
SELECT jsonb_object('{NULL,1}');
-- sluice: error jsonb subscript does not support slices
SELECT j[1:2] FROM d;
-- sluice: error cannot subscript type json
SELECT t['x'] FROM d;
