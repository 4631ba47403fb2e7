-- Multidimensional arrays: a type has one [] per dimension; constants take the dimensions of their text.
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
-- sluice: error A value with more dimensions than its array type declares is not supported yet
SELECT t = '{{a}}' FROM m;
UPDATE m SET a = '{{7},{8},{9}}', t = '{p,q}' WHERE k = 2;
INSERT INTO m VALUES (6, ARRAY[[10, 20, 30]], ARRAY['r']);
DELETE FROM m WHERE k = 1;

-- array_remove, array_replace and array_positions: elements compared as IS NOT DISTINCT FROM.
CREATE TABLE ar (k INT, a INT[], x INT);
INSERT INTO ar VALUES (1, ARRAY[1, 2, 2, 3], 2), (2, ARRAY[1, NULL, NULL, 3], NULL), (3, NULL, 1), (4, '{}', 4), (5, ARRAY[4, 4], 4);
SELECT k, array_remove(a, x), array_replace(a, x, 9), array_replace(a, x, NULL), array_positions(a, x), array_positions(a, 3) FROM ar;
SELECT array_remove(ARRAY[1.0, 2.1, 3.3], 1), array_remove(ARRAY['A', 'CC', 'RR'], 'RR'), array_replace(ARRAY[1, NULL, 3], NULL, NULL), array_positions(ARRAY[1, NULL], NULL), array_replace(ARRAY[[1, 2], [2, 3]], 2, 0);
-- sluice: error function array_remove(integer[][], integer) is not supported yet
SELECT array_remove(ARRAY[[1, 2], [2, 3]], 2);
UPDATE ar SET x = 3 WHERE k = 1;
DELETE FROM ar WHERE k = 5;
