-- String functions over a table with NULLs, checked against PostgreSQL as
-- views over the data already there and incrementally.
CREATE TABLE s (k INT, a TEXT, b TEXT, n INT);
INSERT INTO s VALUES (1, 'hello world', 'lo', 3), (2, 'ABC def', NULL, -2);
INSERT INTO s VALUES (3, '', 'x', 0), (4, 'a,b,,c', ',', 10), (5, NULL, 'é', 1);
UPDATE s SET a = 'héllo wörld' WHERE k = 1;
DELETE FROM s WHERE k = 3;
INSERT INTO s VALUES (6, 'O''Brien \ co', '%', 2);

SELECT k, lpad(a, n + 8, '*'), lpad(a, 3), rpad(a, 12), rpad(a, n, 'ab') FROM s;
SELECT k, repeat(a, 2), reverse(a), initcap(a), translate(a, 'lo', '01') FROM s;
SELECT k, left(a, n), right(a, n), ltrim(a, 'ha'), rtrim(a, 'dc'), btrim(a), md5(a) FROM s;
SELECT k, concat(a, '-', b, n), concat_ws('|', a, b, n), concat_ws(NULL, a) FROM s;
SELECT k, format('%s and %L and %I', a, b, a), format('[%5s|%-5s]', b, n), format('%2$s %1$s', a, b) FROM s;
SELECT k, a LIKE '%o w%' ESCAPE '\', a LIKE 'a$,%' ESCAPE '$', a NOT LIKE '%\%' ESCAPE '#' FROM s;
SELECT k, string_to_array(a, ','), string_to_array(a, NULL), string_to_array(a, ',', '') FROM s;
SELECT k, regexp_replace(a, 'o', '0', 'g'), regexp_replace(a, 'L', '1', 'i'), regexp_replace(a, '(\w+) (\w+)', '\2 \1') FROM s;
SELECT k, regexp_match(a, '(\w)(\w)'), regexp_count(a, 'l'), regexp_like(a, '^[a-z]'), regexp_split_to_array(a, '\s+') FROM s;
SELECT k, starts_with(a, 'h'), octet_length(a), ascii(a), quote_literal(a), quote_ident(a), quote_nullable(b) FROM s;
SELECT k, overlay(a placing 'XY' from 2 for 3), overlay(a placing '-' from 1) FROM s WHERE a <> '';
SELECT chr(65), chr(233), to_hex(255), to_hex(-1), quote_ident('Foo'), quote_ident('foo_1');

-- sluice: error invalid escape string
SELECT a LIKE 'x' ESCAPE 'ab' FROM s;

-- concat and format print booleans as their output does (t, f); VARIADIC
-- spreads an array into their arguments; 'text' || number is text.
CREATE TABLE va (id INT, a INT[], b BOOLEAN[], f TEXT, flag BOOLEAN);
INSERT INTO va VALUES (1, '{1,2,3}', '{t,f}', '%s-%s', true), (2, NULL, NULL, '%2$s/%1$s', false),
  (3, '{}', '{}', '[%s]', NULL), (4, '{7,NULL,9}', '{f,NULL}', '%s|%L', true);
SELECT id, concat(variadic a), concat_ws(',', variadic a), concat(1, flag, 'x'), concat_ws('#', flag, id, flag) FROM va;
SELECT id, format(f, variadic a), format('%s, %s', variadic b), format('%s %L', flag, flag), format(f, flag, id) FROM va WHERE id <> 3;
UPDATE va SET a = '{4,5}', flag = NOT flag WHERE id = 2;
DELETE FROM va WHERE id = 1;
SELECT id, concat(variadic a) IS NULL, format('>>%*1$s<<', 10, 'Hello'), format('|%*2$s|', 'foo', 10, 'bar'), 'n: ' || id + 1, id || ' items' FROM va;
-- sluice: error VARIADIC argument must be an array
SELECT concat(variadic 5);
-- CHAR(n) prints its blanks; regexp_replace's N beats the g flag, a
-- backslash before anything else is itself; `.` matches a newline unless
-- the n flag is given.
CREATE TABLE ch (id INT, s VARCHAR(6));
INSERT INTO ch VALUES (1, 'ab'), (2, 'abcdef'), (3, ''), (4, NULL);
SELECT id, CAST(s AS char(8)), CAST(s AS char(8)) || '|', length(CAST(s AS char(8))) FROM ch;
SELECT CAST(s AS char(8)) FROM ch UNION SELECT CAST('x' AS char(8));
SELECT regexp_replace('foobarrbazz', E'(.)\\1', E'X\\Y\\1Z\\'), regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'g'), regexp_replace('abcabc', 'b', 'Z', 1, 0);
SELECT regexp_like('a' || chr(10) || 'd', 'a.d'), regexp_like('a' || chr(10) || 'd', 'a.d', 'n'), regexp_like('a' || chr(10) || 'd', 'a[.]d'), 'a' || chr(10) || 'd' ~ 'a.d', regexp_like('a]d', 'a[]x]d'), regexp_like('a.d', 'a[[:alpha:].]d');
UPDATE ch SET s = 'xyz' WHERE id = 3;
DELETE FROM ch WHERE id = 1;
