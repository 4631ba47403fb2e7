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

-- regexp_count, regexp_instr, regexp_substr and regexp_replace with a start position and a match number.
CREATE TABLE rx (k INT, s TEXT);
INSERT INTO rx VALUES (1, 'abcabcabc'), (2, 'ABCabc'), (3, 'xyz'), (4, NULL), (5, 'a1b22c333'), (6, 'héllo wörld');
SELECT k, regexp_count(s, 'abc', 1), regexp_count(s, 'abc', 4), regexp_count(s, 'ABC', 1, 'i'), regexp_count(s, '\d+', 2) FROM rx;
SELECT k, regexp_instr(s, 'b'), regexp_instr(s, 'b', 3), regexp_instr(s, 'b', 1, 2), regexp_instr(s, 'b', 1, 2, 1), regexp_instr(s, 'A', 1, 1, 0, 'i'), regexp_instr(s, '(\d)(\d)', 1, 1, 0, '', 2) FROM rx;
SELECT k, regexp_substr(s, 'b.'), regexp_substr(s, 'b.', 3), regexp_substr(s, '[a-c]', 1, 4), regexp_substr(s, 'C', 1, 1, 'i'), regexp_substr(s, '(\d)(\d+)', 1, 1, '', 2) FROM rx;
SELECT k, regexp_replace(s, 'b', 'X', 2), regexp_replace(s, 'b', 'X', 1, 2), regexp_replace(s, 'b', 'X', 1, 0), regexp_replace(s, 'B', '<\&>', 1, 0, 'i'), regexp_replace(s, 'l', 'L', 3, 1) FROM rx;
SELECT regexp_instr('wörld', 'r'), regexp_substr('héllo', 'l+', 2), regexp_count('ab', 'b', 3), regexp_instr('abc', 'c', 10);
-- sluice: error invalid value for parameter "start": 0
SELECT regexp_count('abc', 'b', 0);
-- sluice: error invalid value for parameter "n": 0
SELECT regexp_instr('abc', 'b', 1, 0);
-- sluice: error regexp_substr() does not support the "global" option
SELECT regexp_substr('abc', 'b', 1, 1, 'g');
UPDATE rx SET s = 'bbb' WHERE k = 3;
DELETE FROM rx WHERE k = 1;

-- SQL's regular expression substring: the whole string must match; the text between the two
-- escape-double-quote separators is the result, the part before them matching as little as it can.
CREATE TABLE sim (k INT, s TEXT, p TEXT, e TEXT);
INSERT INTO sim VALUES (1, 'abcdefg', 'a#"(b_d)#"%', '#'), (2, 'abcdefg', 'a*#"%#"g*', '#'), (3, 'abcabc', '%#"b%#"%', '#'),
  (4, 'aaa', 'a+#"a*#"a*', '#'), (5, 'abcdefg', 'a#"%g', '#'), (6, 'abcdefg', 'a%g', '#'), (7, NULL, '%', '#'),
  (8, 'abc', 'a##"b#"c', '#'), (9, 'a"', 'a[#"]', '#'), (10, 'abcdefg', 'a#"%#"g', ''), (11, 'ab', 'a#"#"b', '#'),
  (12, 'a|b', 'a$"_$"b', '$'), (13, 'héllo', 'h#"_l#"%', '#'), (14, 'ab', 'a#', '#'), (15, 'xy', 'x\"y\"', '\'),
  (16, 'a' || chr(10) || 'b', 'a#"_#"b', '#'), (17, 'abcdefg', 'a|b#"%#"g', '#'), (18, 'abcdefg', 'a#"%|ab#"g', '#');
SELECT k, substring(s SIMILAR p ESCAPE e), substring(s FROM p FOR e), s SIMILAR TO p ESCAPE e FROM sim;
SELECT substring('abcdefg' SIMILAR 'a#"(b_d)#"%' ESCAPE '#'), substring('abcdefg' FROM 'a(b)%' FOR '#'), substring('abcdefg' SIMILAR '%' ESCAPE NULL) IS NULL;
SELECT 'a' SIMILAR TO 'a#' ESCAPE '#', 'a\' SIMILAR TO 'a\', 'ab' SIMILAR TO 'a(b|c)', 'a' || chr(10) SIMILAR TO 'a_', 'x(' SIMILAR TO 'x[(]', 'abcdefg' SIMILAR TO 'a#"%#"g' ESCAPE '#', 'a"b' SIMILAR TO 'a#"b' ESCAPE '#';
-- sluice: error more than two escape-double-quote separators
SELECT substring('abcdefg' SIMILAR 'a*#"%#"g*#"x' ESCAPE '#');
-- sluice: error invalid escape string
SELECT substring('abcdefg' SIMILAR 'a#"%#"g' ESCAPE '##');
UPDATE sim SET s = 'abXcdefg' WHERE k = 1;
UPDATE sim SET p = 'a#"%#"' WHERE k = 5;
DELETE FROM sim WHERE k = 3;

-- regexp_matches: the groups of the first match, or of every match with flag g, as text[] rows.
CREATE TABLE rm (k INT, s TEXT, p TEXT, f TEXT);
INSERT INTO rm VALUES (1, 'foobarbequebaz', '(bar)(beque)', ''), (2, 'foObARbEqUEbAz', '(bar)(beque)', 'i'),
  (3, 'foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g'), (4, 'foobarbequebaz', '(bar)(.+)?(beque)', ''),
  (5, 'foobarbequebaz', 'barbeque', ''), (6, 'abc', '', 'g'), (7, 'no', 'x', 'g'), (8, NULL, 'a', ''),
  (9, 'a' || chr(10) || 'bc' || chr(10), '^.?', 'mg'), (10, 'a1 b2', '(\w) (\w)  # two words', 'x');
SELECT k, regexp_matches(s, p, f) FROM rm;
SELECT k, m[1] AS first, m FROM rm, regexp_matches(rm.s, rm.p, rm.f) AS m;
SELECT k, regexp_matches(s, '[a-z]') FROM rm WHERE k < 4;
SELECT regexp_matches('foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g');
SELECT m FROM regexp_matches('aaa', 'a*', 'g') AS m;
SELECT * FROM regexp_matches('a1b2', '[a-z](\d)', 'g') WITH ORDINALITY AS t(m, n);
-- sluice: error invalid regular expression option: "z"
SELECT regexp_matches('foobarbequebaz', '(bar)(beque)', 'gz');
-- sluice: error invalid regular expression
SELECT regexp_matches('foobarbequebaz', '(barbeque');
UPDATE rm SET s = 'barbeque barbeque' WHERE k = 3;
UPDATE rm SET f = 'g' WHERE k = 5;
DELETE FROM rm WHERE k = 1;
