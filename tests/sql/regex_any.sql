-- Regular expression operators, SIMILAR TO and comparisons with ANY/ALL of arrays.
CREATE TABLE s (k INT, a TEXT);
INSERT INTO s VALUES (1, 'abc'), (2, 'ABD'), (3, 'x.y'), (4, NULL), (5, 'a_c'), (6, 'xxy');
SELECT k, a ~ '^a', a ~* '^a', a !~ 'b', a !~* 'B', a ~ 'x\.y' FROM s;
SELECT k, a SIMILAR TO 'a%', a SIMILAR TO '(a|x)%', a NOT SIMILAR TO '%b%', a SIMILAR TO 'x.y', a SIMILAR TO 'a#_c' ESCAPE '#', a SIMILAR TO '[ax]%' FROM s;
SELECT k, k = ANY(ARRAY[1, 3, NULL]), k <> ALL('{1,2}'), k > ANY('{}'::int[]), a = ANY(ARRAY['abc', 'xxy']), k < ALL(ARRAY[4, 5]) FROM s;
SELECT k, substring(a from 'b.'), substring(a from '(.)y'), substring(a from 2), substring(a, '^A') FROM s;
