-- What PostgreSQL's catalog queries need of the SQL itself: pg_catalog's
-- functions and type names, schema-qualified names of functions, types and
-- operators, COLLATE "default", OIDs as their aliases print them, and
-- ANY/ALL over arrays held in columns.
CREATE TABLE types (k INT, typ INT, typmod INT);
INSERT INTO types VALUES (1, 23, -1), (2, 1043, 24), (3, 1700, 655366), (4, 1007, -1),
  (5, 25, NULL), (6, NULL, 4), (7, 1042, 9), (8, 1114, -1), (9, 16, -1);
SELECT k, pg_catalog.format_type(typ, typmod), format_type(typ, NULL) FROM types;
SELECT k, typ::pg_catalog.regtype::pg_catalog.text, typ::oid FROM types WHERE typ IS NOT NULL;
SELECT 'int4'::regtype::oid, 'pg_catalog.varchar'::pg_catalog.regtype::oid, '16'::oid, 23::regtype::text;
SELECT k, typ = '23', typ::oid = '1043'::oid FROM types;
SELECT pg_catalog.pg_encoding_to_char(6), pg_catalog.current_schema(), pg_catalog.array_upper(ARRAY[4, 5, 6], 1);
-- sluice: error type "nosuchtype" does not exist
SELECT 'nosuchtype'::regtype;

CREATE TABLE names (k INT, a TEXT);
INSERT INTO names VALUES (1, 'person'), (2, 'Person'), (3, NULL), (4, 'rich');
SELECT k, a OPERATOR(pg_catalog.~) '^(person)$' COLLATE pg_catalog.default, a::pg_catalog.text, a COLLATE "C" < 'q' FROM names;
SELECT k FROM names WHERE a OPERATOR(pg_catalog.~) '^(rich)$' COLLATE pg_catalog.default ORDER BY 1;
-- sluice: error Collation "de_DE" is not supported yet
SELECT a COLLATE "de_DE" FROM names;

CREATE TABLE arrays (k INT, xs INT[], cs TEXT[]);
INSERT INTO arrays VALUES (1, ARRAY[1, 2, 3], ARRAY['d', 'f']), (2, ARRAY[4, NULL], ARRAY['m']), (3, '{}', NULL),
  (4, NULL, ARRAY[NULL, 'd']);
SELECT k, 2 = ANY(xs), 4 = ANY(xs), k <> ALL(xs), 'd' = any(cs), 'f' = ANY (cs), pg_catalog.array_upper(xs, 1) FROM arrays;
SELECT k FROM arrays WHERE k + 1 = ANY(xs) ORDER BY 1;
-- generate_series and unnest of columns (LATERAL calls), as catalog queries
-- use them: per row of the items before them, or of the enclosing query.
SELECT k, s FROM arrays, generate_series(1, array_upper(xs, 1)) s;
SELECT k, s FROM arrays, pg_catalog.generate_series(k, 3, 2) AS s;
SELECT a.k, x FROM arrays a, unnest(a.cs) x;
SELECT k, (SELECT string_agg(n.a, ', ' ORDER BY n.a) FROM pg_catalog.generate_series(0, pg_catalog.array_upper(arrays.xs, 1)) s, names n WHERE n.k = arrays.xs[s]) FROM arrays;
SELECT k, CASE WHEN xs IS NOT NULL THEN (SELECT count(*) FROM generate_series(1, cardinality(xs)) i WHERE xs[i] > 1) END FROM arrays;
SELECT k, xs || ARRAY[9], cs || 'z'::text, cs || NULL::text[], NULL::int[] || xs FROM arrays;
CREATE TABLE sizes (b BIGINT);
INSERT INTO sizes VALUES (0), (10239), (10240), (10485759), (1073741824), (-20000), (1099511627776), (NULL);
SELECT b, pg_catalog.pg_size_pretty(b) FROM sizes;
-- PostgreSQL's catalog relations that Sluice does not have say so.
-- sluice: error PostgreSQL's catalog relation "pg_class" is not supported yet
SELECT oid::int8 FROM pg_class WHERE relname = 'pg_class';
-- sluice: error PostgreSQL's catalog relation "information_schema.views" is not supported yet
SELECT table_name FROM information_schema.views;
