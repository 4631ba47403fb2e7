-- Multidimensional arrays.
SELECT ARRAY[[1, 2], [3, 4]], ARRAY[ARRAY['a', 'b'], ARRAY['c', NULL]], ARRAY[[1, 2], [3, 4]][1][2], (ARRAY[[1, 2], [3, 4]])[2];
SELECT '{{1,2},{3,4}}'::int[], '{{{1},{2},{3}},{{4},{5},{6}}}'::int[], '{1,2}'::int[][], '{}'::int[][], '{{a,"b c"},{NULL,d}}'::text[];
SELECT array_ndims('{{{1,2},{3,4}}}'::int[]), array_dims('{{{1,2},{3,4}}}'::int[]), array_dims(ARRAY[1, 2]), array_ndims('{}'::int[]), cardinality('{{1,2},{3,4}}'::int[]);
CREATE TABLE m (k INT, a INT[][], t TEXT[]);
INSERT INTO m VALUES (1, '{{1,2},{3,4}}', '{x,NULL,z}'), (2, ARRAY[[5, 6]], '{}'), (3, '{}', NULL), (4, NULL, '{a}'), (5, '{{1},{NULL}}', '{NULL}');
SELECT k, a, a[1][2], a[2], a[2][1], array_ndims(a), array_dims(a), cardinality(a) FROM m;
SELECT k, array_length(a, 1), array_length(a, 2), array_length(a, 3), array_upper(a, 2), array_lower(a, 1), array_lower(a, 3) FROM m;
SELECT k, array_to_string(a, ','), array_to_string(t, '-', '*'), array_to_string(t, '-'), array_to_string(t, '-', NULL) FROM m;
SELECT k FROM m WHERE a = '{{1,2},{3,4}}' OR a @> ARRAY[6];
-- sluice: error multidimensional arrays must have sub-arrays with matching dimensions
SELECT '{{1,2},{3}}'::int[];
-- sluice: error multidimensional arrays must have array expressions with matching dimensions
SELECT ARRAY[[1, 2], [3]];
SELECT k, t = '{{a}}', t = '{x,NULL,z}' FROM m;
UPDATE m SET a = '{{7},{8},{9}}', t = '{p,q}' WHERE k = 2;
INSERT INTO m VALUES (6, ARRAY[[10, 20, 30]], ARRAY['r']);
DELETE FROM m WHERE k = 1;

-- array_remove, array_replace and array_positions: elements compared as IS NOT DISTINCT FROM.
CREATE TABLE ar (k INT, a INT[], x INT);
INSERT INTO ar VALUES (1, ARRAY[1, 2, 2, 3], 2), (2, ARRAY[1, NULL, NULL, 3], NULL), (3, NULL, 1), (4, '{}', 4), (5, ARRAY[4, 4], 4);
SELECT k, array_remove(a, x), array_replace(a, x, 9), array_replace(a, x, NULL), array_positions(a, x), array_positions(a, 3) FROM ar;
SELECT array_remove(ARRAY[1.0, 2.1, 3.3], 1), array_remove(ARRAY['A', 'CC', 'RR'], 'RR'), array_replace(ARRAY[1, NULL, 3], NULL, NULL), array_positions(ARRAY[1, NULL], NULL), array_replace(ARRAY[[1, 2], [2, 3]], 2, 0);
-- sluice: error removing elements from multidimensional arrays is not supported
SELECT array_remove(ARRAY[[1, 2], [2, 3]], 2);
UPDATE ar SET x = 3 WHERE k = 1;
DELETE FROM ar WHERE k = 5;

-- An array type holds arrays of any number of dimensions (INT[][] is INT[]), whose subscripts may start elsewhere than at 1.
CREATE TABLE md (k INT, a INT[], t TEXT[][]);
INSERT INTO md VALUES (1, '{{1,2},{3,4}}', '{a,b}'), (2, '{5,6}', '{{a,bc},{def,hijk}}'), (3, '{{{1},{2}}}', '{}'), (4, '{}', NULL), (5, NULL, '{{x}}'), (6, '[0:2]={7,8,9}', '[2:3][-1:-1]={{p},{q}}');
SELECT k, a, t, array_ndims(a), array_dims(a), array_dims(t), array_lower(a, 1), array_upper(a, 1), array_lower(t, 2), array_upper(t, 2), array_length(t, 1) FROM md;
SELECT k, a[1], a[1][2], a[0], a[1][1][1], t[2][1], t[3][-1], cardinality(a), cardinality(t) FROM md;
SELECT k, a[1:1], a[:1], a[2:], a[1:2][2], a[:], t[2:2], t[:][1:1], t[3:][-1:] FROM md;
SELECT k, a || ARRAY[10], ARRAY[0] || a, 0 || a, a || 11 FROM md WHERE k IN (2, 4, 5, 6);
SELECT k, a || '{{1,2}}' FROM md WHERE k = 2;
SELECT k, a || ARRAY[7, 8], ARRAY[[7, 8]] || a, a || a FROM md WHERE k IN (1, 4);
SELECT a, count(*) FROM md GROUP BY a;
SELECT x.k, y.k FROM md x JOIN md y ON x.a = y.a AND x.t IS NOT DISTINCT FROM y.t;
SELECT k, u FROM md, unnest(t) AS u;
SELECT k FROM md WHERE 3 = ANY (a) OR 'p' = ANY (t) OR a @> '{{9}}';
SELECT k, ARRAY[a, a], ARRAY[t] FROM md WHERE k IN (1, 2, 6);
SELECT '[1:1]={7}'::int[] = '{7}', '[0:0]={7}'::int[] = '{7}', '[0:1][1:1]={{1},{2}}'::int[], array_fill(7, ARRAY[2, 3]), array_fill('x'::text, ARRAY[2], ARRAY[0]), array_fill(NULL::int, ARRAY[1, 1]);
SELECT array_agg(a ORDER BY a) FROM md WHERE k = 2;
SELECT array_agg(a ORDER BY a) FROM md WHERE k = 6;
SELECT k, ARRAY(SELECT t FROM md i WHERE i.k = o.k) FROM md o WHERE k IN (2, 6);
-- sluice: error multidimensional arrays must have array expressions with matching dimensions
SELECT ARRAY[a, '{1}'] FROM md WHERE k = 2;
-- sluice: error argument must be empty or one-dimensional array
SELECT a || 5 FROM md WHERE k = 1;
-- sluice: error cannot concatenate incompatible arrays
SELECT a || '{{{1}}}' FROM md WHERE k = 2;
-- sluice: error Specified array dimensions do not match array contents
SELECT '[1:3]={1,2}'::int[];
UPDATE md SET a = '[-2:-1][1:2]={{1,2},{3,4}}' WHERE k = 3;
INSERT INTO md VALUES (7, ARRAY[[1, 2], [3, 4]], ARRAY[['a'], ['b']]);
DELETE FROM md WHERE k = 1;

-- Array functions by name, and constants without a type where PostgreSQL resolves one.
SELECT array_cat(ARRAY[[3, 4], [5, 6]], ARRAY[1, 2]), array_append('[2:3]={1,2}'::int[], 3), array_prepend(0, '[2:3]={1,2}'::int[]), trim_array(ARRAY[1, 2, 3], 2), trim_array('[0:1][1:1]={{1},{2}}'::int[], 1);
SELECT array_position(ARRAY['a', NULL, 'b', 'a'], NULL), array_position(ARRAY['a', NULL, 'b', 'a'], 'a', 2), array_position('[2:4]={1,2,3}'::int[], 3), array_positions('[2:4]={1,2,1}'::int[], 1), array_positions(NULL, 10), array_to_string(ARRAY[1, NULL, 3], NULL);
SELECT width_bucket(5, ARRAY[1, 3, 5, 9]), width_bucket(0, ARRAY[1, 3]), width_bucket(10, '{1,3,9}'), width_bucket(2.5, ARRAY[1.5, 2.5]);
SELECT pg_typeof(ARRAY[[1, 2]]), pg_typeof('{1}'::int[][]), pg_typeof(1), ARRAY[]::text[], '{a,b}'::_text, (ARRAY[[1, 2], [3, 4]])[NULL][1], (ARRAY[[1, 2], [3, 4]])[1][NULL:2], (ARRAY[1, 2, 3])['2'];
SELECT k, array_position(a, 2), trim_array(a, 1), width_bucket(k, a) FROM ar WHERE k IN (1, 4);
-- sluice: error number of elements to trim must be between 0 and 3
SELECT trim_array(ARRAY[1, 2, 3], 4);
-- sluice: error thresholds array must not contain NULLs
SELECT width_bucket(1, ARRAY[1, NULL]);
-- generate_subscripts(): the subscripts of a dimension, in FROM and in the select list.
CREATE TABLE subs (id INT, a INT[], m INT[][]);
INSERT INTO subs VALUES (1, ARRAY[10, 20, 30], ARRAY[[1,2],[3,4],[5,6]]), (2, '{}', NULL), (3, '[3:5]={7,8,9}', '{{1},{2}}'), (4, NULL, NULL);
SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1);
SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1, true) AS g(s);
SELECT id, s, a[s] FROM subs, generate_subscripts(a, 1) AS s;
SELECT id, generate_subscripts(m, 2) FROM subs;
SELECT id, generate_subscripts(a, 1, true) AS s FROM subs;
SELECT id, i, j, m[i][j] FROM subs, generate_subscripts(m, 1) i, generate_subscripts(m, 2) j;
UPDATE subs SET a = a || 40 WHERE id = 1;
DELETE FROM subs WHERE id = 3;
SELECT id, s, a[s] FROM subs, generate_subscripts(a, 1) AS s;

-- A cast of ARRAY[...] types its elements: each is cast to the element type.
SELECT ARRAY[1, 3, 9, 'NaN', 'NaN']::float8[] AS a;
SELECT ARRAY[1, '2.5']::numeric[] AS a, ARRAY[ARRAY[1, 2], ARRAY['3', 4]]::text[] AS b;
SELECT pg_typeof(ARRAY['1', '2']::int[]) AS t, ARRAY['a', 'bcd']::varchar(2)[] AS v;
SELECT width_bucket(5, ARRAY[1, 3, 9, 'NaN']::float8[]) AS wb;
-- sluice: error invalid input syntax
SELECT ARRAY[1, 'x']::int[];

-- A row prepended or appended to an array of rows.
SELECT ROW(1,2) || array_agg(x) AS a FROM (VALUES (ROW(3,4)), (ROW(5,6))) v(x);
SELECT array_agg(x) || ROW(7,8) AS a FROM (VALUES (ROW(3,4))) v(x);

-- An array of rows has one dimension, though each row is a list of fields.
CREATE TABLE pairs (x INT, y INT);
INSERT INTO pairs VALUES (1, 2), (NULL, 3), (4, NULL);
SELECT array_dims(array_agg(p)), array_ndims(array_agg(p)), cardinality(array_agg(p)) FROM pairs p;
SELECT array_length(array_agg(p), 1), array_upper(array_agg(p), 1), array_upper(array_agg(p), 2) FROM pairs p;
SELECT y, generate_subscripts(array_agg(p), 1) FROM pairs p GROUP BY y;
SELECT array_dims(ARRAY[ROW(1, 2), ROW(3, 4)]), array_dims(ARRAY[[1, 2], [3, 4]]);
UPDATE pairs SET y = 5 WHERE x = 1;
DELETE FROM pairs WHERE x IS NULL;
INSERT INTO pairs VALUES (6, 7);
SELECT array_dims(array_agg(p ORDER BY x)), array_agg(p ORDER BY x) FROM pairs p;

-- A quoted or backslash-escaped NULL in an array's text is the text null.
SELECT '{null,n\ull,"null",NULL,\NULL}'::text[];
CREATE TABLE nulls_text (k INT, t TEXT);
INSERT INTO nulls_text VALUES (1, '{null,"NULL"}'), (2, '{n\ull,x}'), (3, '{a,NULL}');
SELECT k, t::text[], array_position(t::text[], NULL) FROM nulls_text;
UPDATE nulls_text SET t = '{\Null}' WHERE k = 3;
DELETE FROM nulls_text WHERE k = 1;
SELECT k, t::text[], cardinality(array_remove(t::text[], NULL)) FROM nulls_text;
