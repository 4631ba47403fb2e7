-- Aggregates written by users (CREATE AGGREGATE): a transition function
-- folded over each group's rows from INITCOND, then FINALFUNC. Each query
-- is checked as a view, kept up to date through the inserts, updates and
-- deletes below it: a transition function has no inverse, so a group that
-- changes is folded again from its rows.
CREATE TABLE t (g INT, x INT, s TEXT, d DOUBLE PRECISION);
INSERT INTO t VALUES (1, 1, 'a', 1.5), (1, 2, 'b', 2.5), (2, 3, 'c', NULL), (2, NULL, NULL, 4),
  (3, NULL, 'z', NULL), (4, 7, 'q', 0.5);

-- An sfunc alone, not strict: it sees every row, NULLs included, from a
-- NULL state.
CREATE FUNCTION add_any(acc BIGINT, v INT) RETURNS BIGINT
  AS $$ SELECT COALESCE(acc, 100) + COALESCE(v, 1000) $$ LANGUAGE SQL;
CREATE AGGREGATE sum_any (INT) (SFUNC = add_any, STYPE = BIGINT);
SELECT g, sum_any(x) FROM t GROUP BY g;
SELECT sum_any(x), sum_any(x + 1) FROM t;
SELECT sum_any(x) FROM t WHERE g > 100;

-- A strict sfunc skips rows with a NULL argument; without INITCOND the
-- first row's argument is the first state, and a group with none is NULL.
CREATE FUNCTION add_strict(acc INT, v INT) RETURNS INT AS $$ SELECT acc * 2 + v $$ LANGUAGE SQL STRICT;
CREATE AGGREGATE fold_strict (INT) (SFUNC = add_strict, STYPE = INT);
CREATE AGGREGATE fold_strict_init (INT) (SFUNC = add_strict, STYPE = INT, INITCOND = '5');
SELECT g, fold_strict(x ORDER BY x), fold_strict_init(x ORDER BY x) FROM t GROUP BY g;

-- FINALFUNC, and a composite state with INITCOND read as its text.
CREATE TYPE avg_state AS (total BIGINT, cnt BIGINT);
CREATE FUNCTION avg_step(st avg_state, v INT) RETURNS avg_state
  AS $$ SELECT ROW(st.total + v, st.cnt + 1)::avg_state $$ LANGUAGE SQL STRICT;
CREATE FUNCTION avg_final(st avg_state) RETURNS NUMERIC
  AS $$ SELECT CASE WHEN (st).cnt = 0 THEN NULL ELSE (st).total::numeric / (st).cnt END $$ LANGUAGE SQL;
CREATE AGGREGATE my_avg (INT) (SFUNC = avg_step, STYPE = avg_state, FINALFUNC = avg_final,
  INITCOND = '(0,0)');
CREATE AGGREGATE my_state (INT) (SFUNC = avg_step, STYPE = avg_state, INITCOND = '(10,0)');
SELECT g, my_avg(x), my_state(x) FROM t GROUP BY g;
SELECT my_avg(x), my_state(x) FROM t;

-- An array state: the values in the call's ORDER BY, then reversed by the
-- final function's text.
CREATE FUNCTION push(acc INT[], v INT) RETURNS INT[] AS $$ SELECT acc || v $$ LANGUAGE SQL;
CREATE FUNCTION as_text(acc INT[]) RETURNS TEXT AS $$ SELECT array_to_string(acc, '-', '?') $$ LANGUAGE SQL;
CREATE AGGREGATE collect (INT) (SFUNC = push, STYPE = INT[], INITCOND = '{}');
CREATE AGGREGATE collect_text (INT) (SFUNC = push, STYPE = INT[], FINALFUNC = as_text, INITCOND = '{0}');
SELECT g, collect(x ORDER BY x DESC), collect_text(x ORDER BY x NULLS FIRST) FROM t GROUP BY g;

-- Order matters to text concatenation: ORDER BY inside the call, by other
-- columns than the argument, with NULLs placed either way.
CREATE FUNCTION cat(acc TEXT, v TEXT) RETURNS TEXT AS $$ SELECT acc || ',' || v $$ LANGUAGE SQL STRICT;
CREATE AGGREGATE cat_all (TEXT) (SFUNC = cat, STYPE = TEXT);
CREATE AGGREGATE cat_from (TEXT) (SFUNC = cat, STYPE = TEXT, INITCOND = '>');
SELECT g, cat_all(s ORDER BY s), cat_all(s ORDER BY s DESC), cat_from(s ORDER BY x DESC NULLS LAST, s DESC)
FROM t GROUP BY g;
SELECT cat_all(s ORDER BY d NULLS FIRST, x), cat_from(s ORDER BY g, s) FROM t;
-- Two arguments; FILTER; DISTINCT; HAVING; in expressions.
CREATE FUNCTION pair(acc TEXT, a TEXT, b INT) RETURNS TEXT
  AS $$ SELECT COALESCE(acc, '') || COALESCE(a, '~') || COALESCE(b::text, '#') $$ LANGUAGE SQL;
CREATE AGGREGATE pairs (TEXT, INT) (SFUNC = pair, STYPE = TEXT);
SELECT g, pairs(s, x ORDER BY x, s), pairs(s, g ORDER BY s) FILTER (WHERE x > 1) FROM t GROUP BY g;
SELECT g, cat_all(DISTINCT s) FROM t GROUP BY g;
SELECT g, sum_any(x) * 2 AS twice FROM t GROUP BY g HAVING fold_strict(x ORDER BY x) IS NOT NULL;
SELECT cat_all(s ORDER BY s) FROM (SELECT s FROM t WHERE s IS NOT NULL) q;

-- Built-in transition functions, named as PostgreSQL names them.
CREATE AGGREGATE isum (INT) (SFUNC = int4_sum(int8, int4), STYPE = INT8, INITCOND = '0', PARALLEL = SAFE,
  COMBINEFUNC = int8pl);
CREATE AGGREGATE imax (INT) (SFUNC = int4larger, STYPE = INT4);
CREATE AGGREGATE fvar (DOUBLE PRECISION) (SFUNC = float8_accum, STYPE = FLOAT8[], INITCOND = '{0,0,0}');
CREATE AGGREGATE counter (*) (SFUNC = int8inc, STYPE = INT8, INITCOND = '0');
SELECT g, isum(x), imax(x), fvar(d), counter(*) FROM t GROUP BY g;
-- The old syntax.
CREATE AGGREGATE old_sum (BASETYPE = INT, SFUNC = int4pl, STYPE = INT);
SELECT g, old_sum(x) FROM t GROUP BY g;

-- Grouping sets.
SELECT g, x > 1 AS big, cat_all(s ORDER BY s), isum(x) FROM t GROUP BY ROLLUP (g, x > 1);

-- Changes: every view above is kept up to date through these.
INSERT INTO t VALUES (1, 5, 'e', 3), (5, NULL, NULL, NULL), (3, 4, 'y', 2);
UPDATE t SET s = 'bb', x = 20 WHERE s = 'b';
DELETE FROM t WHERE g = 4;
DELETE FROM t WHERE x = 1;
UPDATE t SET s = NULL WHERE s = 'z';
SELECT g, sum_any(x), fold_strict(x ORDER BY x), my_avg(x), collect(x ORDER BY x DESC),
  cat_all(s ORDER BY s), isum(x), counter(*) FROM t GROUP BY g;

-- Over windows: each frame folded from its start.
SELECT g, x, cat_all(s) OVER (PARTITION BY g ORDER BY x, s),
  collect(x) OVER (ORDER BY g, x, s ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
  isum(x) FILTER (WHERE x > 2) OVER (ORDER BY g, x, s),
  fold_strict(x) OVER (PARTITION BY g ORDER BY x, s ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
FROM t;
-- A moving frame uses the moving-aggregate functions, as PostgreSQL does.
CREATE FUNCTION mark(acc TEXT, v TEXT) RETURNS TEXT AS $$ SELECT acc || '+' || v $$ LANGUAGE SQL STRICT;
CREATE FUNCTION unmark(acc TEXT, v TEXT) RETURNS TEXT AS $$ SELECT acc $$ LANGUAGE SQL STRICT;
CREATE AGGREGATE marked (TEXT) (SFUNC = cat, STYPE = TEXT, INITCOND = 'i',
  MSFUNC = mark, MINVFUNC = unmark, MSTYPE = TEXT, MINITCOND = 'm');
SELECT g, x, marked(s) OVER (ORDER BY g, x, s ROWS BETWEEN CURRENT ROW AND CURRENT ROW),
  marked(s) OVER (ORDER BY g, x, s) FROM t;
-- Frames of one bound never overlap the previous row's, and with EXCLUDE
-- every frame is folded from its start: PostgreSQL never calls MINVFUNC.
SELECT g, x, marked(s) OVER (ORDER BY g, x, s ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING),
  marked(s) OVER (ORDER BY g, x, s ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW),
  marked(s) OVER (PARTITION BY g ORDER BY x RANGE BETWEEN CURRENT ROW AND CURRENT ROW)
FROM t;
-- A volatile argument makes PostgreSQL fold every frame from its start,
-- with SFUNC.
SELECT g, x, marked(s || CASE WHEN random() < 0 THEN '?' ELSE '' END)
  OVER (ORDER BY g, x, s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
-- Where frames overlap, PostgreSQL takes the rows that leave the frame out
-- of the state with MINVFUNC (unmark here, no true inverse).
-- sluice: error Aggregate marked over a window frame whose start moves (PostgreSQL's moving-aggregate mode, which takes rows out of the state with its MINVFUNC) is not supported yet
SELECT g, x, marked(s) OVER (ORDER BY g, x, s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;

-- Polymorphic arguments take the call's type.
CREATE FUNCTION first_of(acc anyelement, v anyelement) RETURNS anyelement
  AS $$ SELECT COALESCE(acc, v) $$ LANGUAGE SQL;
CREATE AGGREGATE first_value_of (anyelement) (SFUNC = first_of, STYPE = anyelement);
SELECT g, first_value_of(s ORDER BY s), first_value_of(x ORDER BY x DESC) FROM t GROUP BY g;

-- CREATE OR REPLACE and DROP AGGREGATE.
CREATE OR REPLACE AGGREGATE imax (INT) (SFUNC = int4smaller, STYPE = INT4);
SELECT imax(x) FROM t;
DROP AGGREGATE imax (INT);
-- sluice: error imax
SELECT imax(x) FROM t;
DROP AGGREGATE IF EXISTS imax (INT);
CREATE AGGREGATE imax (INT) (SFUNC = int4larger, STYPE = INT4);
SELECT imax(x) FROM t;

-- Refusals.
-- sluice: error aggregates with FINALFUNC_EXTRA
CREATE AGGREGATE extra (INT) (SFUNC = int4pl, STYPE = INT, FINALFUNC = int4pl, FINALFUNC_EXTRA);
-- sluice: error does not exist
CREATE AGGREGATE nosuch (INT) (SFUNC = no_such_function, STYPE = INT);
-- sluice: error does not exist
SELECT sum_any(s) FROM t;
-- sluice: error aggregate function calls cannot be nested
SELECT sum_any(imax(x)) FROM t;
-- sluice: error not allowed
SELECT g FROM t WHERE sum_any(x) > 0;
-- sluice: error an aggregate ordered by keys in different directions
SELECT cat_all(s ORDER BY g, s DESC) FROM t;

-- A SQL function's body may call an aggregate.
CREATE FUNCTION strings_of(k INT) RETURNS TEXT AS $$ SELECT cat_all(s ORDER BY s) FROM t WHERE g = k $$ LANGUAGE SQL;
CREATE FUNCTION all_strings() RETURNS TEXT AS $$ SELECT cat_from(s ORDER BY s) FROM t $$ LANGUAGE SQL;
SELECT o.g, strings_of(o.g), all_strings() FROM t AS o;
