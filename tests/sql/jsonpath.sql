-- SQL/JSON paths (jsonpath): jsonb_path_query and its kin, @? and @@, in
-- lax and strict mode, with variables, filters, arithmetic, methods and
-- the string predicates, over documents that come, change and go.
CREATE TABLE d (id INT PRIMARY KEY, j JSONB);
INSERT INTO d VALUES (1, '{"a": [1, 2, 3, {"b": "x"}], "c": {"d": 5.50, "e": null}, "s": "hello World"}'), (2, '[1, "2", null, true, {"a": 7}]'), (3, '5'), (4, '{"a": 1}');
SELECT id, jsonb_path_query_array(j, '$.a[*]'), jsonb_path_query_array(j, '$.a[1 to last]'), jsonb_path_query_array(j, 'strict $.a[0, 2]') FROM d WHERE id = 1;
SELECT id, jsonb_path_query_array(j, '$.**'), jsonb_path_query_array(j, '$.**{1}'), jsonb_path_query_array(j, '$.*') FROM d;
SELECT id, jsonb_path_query_array(j, '$.a[*] ? (@ > 1)'), jsonb_path_query_array(j, '$ ? (@.c.d > 5).c'), jsonb_path_query_first(j, '$.c.d * 2 + 1') FROM d WHERE id = 1;
SELECT id, jsonb_path_exists(j, '$.a'), j @? '$.a[*] ? (@ == 7)', j @@ '$.a == 1', jsonb_path_match(j, 'exists($.c)') FROM d;
SELECT id, jsonb_path_query_array(j, '$[*].type()'), jsonb_path_query_array(j, '$.size()'), jsonb_path_query_array(j, 'lax $[*] ? (@.type() == "number")') FROM d;
SELECT id, jsonb_path_query_array(j, '$.s ? (@ like_regex "^hel")'), jsonb_path_query_array(j, '$.s ? (@ like_regex "WORLD" flag "i")'), jsonb_path_query_array(j, '$.s ? (@ starts with "hello")') FROM d WHERE id = 1;
SELECT id, jsonb_path_query_array(j, '$.a[*] ? (@ >= $min && @ < $max)', '{"min": 2, "max": 10}'), jsonb_path_query_array(j, '$.c.d.floor()'), jsonb_path_query_array(j, '$.c.d.ceiling()'), jsonb_path_query_array(j, '-$.c.d.abs()') FROM d WHERE id = 1;
SELECT id, jsonb_path_query_array(j, '$[*] ? (!(@ == 1))'), jsonb_path_query_array(j, '$[*] ? ((@ == 1) is unknown)'), jsonb_path_query_array(j, '$[*].double()', silent => true) FROM d WHERE id = 2;
SELECT id, v FROM d, jsonb_path_query(d.j, '$.a[*]') AS v WHERE id = 1;
SELECT jsonb_path_query('{"a": [1, 2]}', '$.a[*] + 10');
SELECT jsonb_path_query('[1,2,3]', '$[last]'), jsonb_path_query_first('[1,2,3]', '$[last - 1]');
SELECT jsonb_path_query_array('{"a": 1}', 'strict $.b', silent => true);
-- sluice: error JSON object does not contain key "b"
SELECT jsonb_path_query_array('{"a": 1}', 'strict $.b');
-- sluice: error is not a single numeric value
SELECT jsonb_path_query_array('{"a": "x"}', '$.a + 1');
-- sluice: error syntax error
SELECT jsonb_path_query_array('{"a": "x"}', '$.a +');
-- sluice: error single boolean result is expected
SELECT jsonb_path_match('{"a": 1}', '$.a');
-- sluice: error could not find jsonpath variable "x"
SELECT jsonb_path_query_array('{"a": 1}', '$.a ? (@ > $x)');
SELECT jsonb_path_query('[[null, 1, "abc", "abcabc"]]', 'lax $ ? (@[*] starts with "abc")');
SELECT jsonb_path_query('{"a": {"b": 1}}', 'lax $.**{last}'), jsonb_path_query_array('[]', '$[last]');
SELECT jsonb_path_query('[1, 2, 3]', '($[*] > 2) ? (@ == true)'), jsonb_path_query_array('[1, "2", 3]', '+$', silent => true);
SELECT jsonb '["1", 2, 0, 3]' @? '-$[*]', jsonb '["1", 2]' @? 'strict -$[*]';
SELECT * FROM jsonb_path_query('{"a": [1, 2]}', '$.a[*] ? (@ > $x)', vars => '{"x": 1}');
UPDATE d SET j = '{"a": [10, 20], "s": "abc"}' WHERE id = 1;
DELETE FROM d WHERE id = 3;
INSERT INTO d VALUES (5, '{"a": [{"b": 1}, {"b": 2}], "s": "xyz"}');
SELECT id, jsonb_path_query_array(j, '$.a[*] ? (@ > 5 || @.b == 2)'), j @? '$.s ? (@ like_regex "^a")', jsonb_path_match(j, '$.a.size() == 2') FROM d WHERE jsonb_typeof(j) = 'object';
SELECT id, v FROM d, jsonb_path_query(d.j, 'lax $.a[*].b') AS v;
-- sluice: error not supported yet
SELECT jsonb_path_query('{"a": 1}', '$.keyvalue()');
-- The type jsonpath: a path as PostgreSQL prints it.
SELECT '$.a ? (@ > 1 && @.b like_regex "x" flag "mi")'::jsonpath, 'strict $[1 to last, 0].**{2 to last}'::jsonpath, '-1 + 2 * ($.a - 3)'::jsonpath;
SELECT '$.a.type()'::jsonpath, '1.e1'::jsonpath, '$ ? (exists (@.x) && !(@.y == $"v")) ? ((@ starts with "q") is unknown)'::jsonpath;
SELECT jsonb_path_query_array('{"a": [1, 5]}', '$.a[*] ? (@ > 2)'::jsonpath), pg_typeof('$'::jsonpath);
-- sluice: error syntax error
SELECT '$.a +'::jsonpath;
