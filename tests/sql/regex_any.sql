-- Regular expression operators, SIMILAR TO and comparisons with ANY/ALL of arrays.
CREATE TABLE s (k INT, a TEXT);
INSERT INTO s VALUES (1, 'abc'), (2, 'ABD'), (3, 'x.y'), (4, NULL), (5, 'a_c'), (6, 'xxy');
SELECT k, a ~ '^a', a ~* '^a', a !~ 'b', a !~* 'B', a ~ 'x\.y' FROM s;
SELECT k, a SIMILAR TO 'a%', a SIMILAR TO '(a|x)%', a NOT SIMILAR TO '%b%', a SIMILAR TO 'x.y', a SIMILAR TO 'a#_c' ESCAPE '#', a SIMILAR TO '[ax]%' FROM s;
SELECT k, k = ANY(ARRAY[1, 3, NULL]), k <> ALL('{1,2}'), k > ANY('{}'::int[]), a = ANY(ARRAY['abc', 'xxy']), k < ALL(ARRAY[4, 5]) FROM s;
SELECT k, substring(a from 'b.'), substring(a from '(.)y'), substring(a from 2), substring(a, '^A') FROM s;

-- Array containment and overlap: @>, <@ and &&, NULL elements matching nothing.
CREATE TABLE arr (k INT, a INT[], b INT[]);
INSERT INTO arr VALUES (1, ARRAY[1, 2, 3], ARRAY[2, 3]), (2, ARRAY[1, NULL], '{NULL}'), (3, '{}', '{}'),
  (4, NULL, ARRAY[1]), (5, ARRAY[4, 4, 5], ARRAY[5, 4, 4, 4]), (6, ARRAY[7], ARRAY[8, 9]);
SELECT k, a @> b, b <@ a, a && b, b @> a, a @> ARRAY[1], a && ARRAY[3, 4] FROM arr;
SELECT k FROM arr WHERE a @> ARRAY[4] OR b && '{9}';
-- sluice: error operator does not exist: integer[] @> bigint[]
SELECT a @> ARRAY[1::bigint] FROM arr;
SELECT ARRAY[[1, 2], [3, 4]] @> ARRAY[4, 1], ARRAY[1, 2] <@ ARRAY[[1, 2], [3, 4]], ARRAY['a', 'b'] && ARRAY['b'];
UPDATE arr SET b = ARRAY[1, 2, 3] WHERE k = 1;
DELETE FROM arr WHERE k = 6;
