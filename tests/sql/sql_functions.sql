-- SQL functions (CREATE FUNCTION ... LANGUAGE SQL), inlined where they are
-- called: expressions, scalar subqueries, and set-returning functions in FROM.
CREATE TABLE t (a INT, b INT, s TEXT);
INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, 'z');
CREATE FUNCTION add1(x int) RETURNS int LANGUAGE SQL IMMUTABLE RETURN x + 1;
CREATE FUNCTION twice(int) RETURNS bigint AS 'select $1 * 2' LANGUAGE SQL STRICT;
CREATE FUNCTION nonneg(x int) RETURNS boolean AS 'select coalesce(x >= 0, false)' LANGUAGE SQL;
CREATE FUNCTION bval(k int) RETURNS int AS $$ SELECT b FROM t WHERE a = k $$ LANGUAGE SQL;
CREATE FUNCTION upto(n int) RETURNS SETOF int AS 'select g from generate_series(1, $1) g' LANGUAGE SQL;
CREATE FUNCTION pairs(n int) RETURNS TABLE (i int, j text) AS $$ SELECT a, s FROM t WHERE a <= n $$ LANGUAGE SQL;
CREATE FUNCTION add2(x int) RETURNS int LANGUAGE SQL RETURN add1(add1(x));
SELECT a, add1(a), twice(b), nonneg(b), add2(b) FROM t;
SELECT o.a, bval(o.a + 1) FROM t AS o;
SELECT o.a, u FROM t AS o, upto(o.a) u;
SELECT * FROM pairs(2);
SELECT o.a, p.j FROM t AS o JOIN LATERAL pairs(o.a) p ON p.i = o.a;
SELECT a FROM t WHERE nonneg(b) AND add1(a) > 2;
-- An argument passed into a subquery of the body whose table has a column
-- of the argument's name: the caller's column, not the subquery's.
CREATE FUNCTION count_b(x int) RETURNS bigint AS $$ SELECT (SELECT count(*) FROM t WHERE t.b = x * 10) $$ LANGUAGE SQL;
SELECT o.a, count_b(a) FROM t AS o;
SELECT add1(a), count(*) FROM t GROUP BY add1(a);
-- sluice: error could hide
SELECT a, bval(a) FROM t;
-- sluice: error function add1 takes 1 argument, not 2
SELECT add1(a, b) FROM t;
INSERT INTO t VALUES (4, 40, 'w'), (5, -5, 'v');
DELETE FROM t WHERE a = 2;
UPDATE t SET b = 5 WHERE a = 1;
-- A function that calls itself is refused, in FROM and in expressions.
-- (PostgreSQL checks a body when it is created: the name must exist first.)
CREATE FUNCTION forever(n int) RETURNS SETOF int AS 'select 1' LANGUAGE SQL;
CREATE OR REPLACE FUNCTION forever(n int) RETURNS SETOF int AS 'select x from forever($1) x' LANGUAGE SQL;
CREATE FUNCTION again(n int) RETURNS int AS 'select 1' LANGUAGE SQL;
CREATE OR REPLACE FUNCTION again(n int) RETURNS int AS 'select again($1)' LANGUAGE SQL;
-- sluice: error more than 32 deep
SELECT * FROM forever(1);
-- sluice: error more than 32 deep
SELECT again(1);

-- A composite parameter's fields, as name.field; a FROM item of the same
-- name hides the parameter.
CREATE TYPE pt AS (x INT, y INT);
CREATE FUNCTION psum(p pt) RETURNS INT AS $$ SELECT p.x + p.y $$ LANGUAGE SQL;
CREATE FUNCTION pfirst(t pt) RETURNS INT AS $$ SELECT t.a FROM t WHERE t.a > 1 ORDER BY t.a LIMIT 1 $$ LANGUAGE SQL;
SELECT a, psum(ROW(a, b)::pt), pfirst(ROW(a, b)::pt) FROM t AS o;

-- A user's aggregate over PostgreSQL's own transition function (more in
-- user_aggregates.sql).
CREATE TABLE agg_t (a INT);
INSERT INTO agg_t VALUES (1), (2);
CREATE AGGREGATE my_sum (int4) (stype = int4, sfunc = int4pl);
SELECT my_sum(a) FROM agg_t;

-- Named arguments and parameter defaults, in the select list, in WHERE, in
-- FROM and in a window function's argument.
CREATE TABLE na (a INT, b INT);
INSERT INTO na VALUES (1, 10), (2, NULL), (3, 30);
CREATE FUNCTION addn(a INT, b INT = 10, c INT DEFAULT 100) RETURNS INT LANGUAGE SQL AS 'SELECT a + b * 2 + c * 3';
CREATE FUNCTION stricter(x INT, y INT = NULL) RETURNS INT LANGUAGE SQL STRICT RETURN x + coalesce(y, 0);
CREATE FUNCTION upton(lo INT, hi INT = 3) RETURNS SETOF INT AS 'select g from generate_series(lo, hi) g' LANGUAGE SQL;
SELECT a, addn(a), addn(a, b), addn(c => b, a => a), addn(a, c := 1), addn(b := a, a := 0, c := a) FROM na;
SELECT a, stricter(a), stricter(a, b), stricter(y => 1, x => b) FROM na;
SELECT a FROM na WHERE addn(a, c => 0) > 5;
SELECT na.a, u FROM na, upton(na.a) u;
SELECT * FROM upton(hi => 2, lo => 0);
SELECT a, sum(addn(a, c => 0)) OVER (ORDER BY a) FROM na;
-- sluice: error argument name "a" used more than once
SELECT addn(a => 1, a => 2);
-- sluice: error positional argument cannot follow named argument
SELECT addn(a => 1, 2);
-- sluice: error no argument for parameter "a"
SELECT addn(b => 1);
-- sluice: error has no parameter named "z"
SELECT addn(1, z => 1);
-- sluice: error function addn takes 3 arguments, not 4
SELECT addn(1, 2, 3, 4);
-- sluice: error input parameters after one with a default value must also have defaults
CREATE FUNCTION baddef(a INT = 1, b INT) RETURNS INT LANGUAGE SQL RETURN a + b;
INSERT INTO na VALUES (4, 40);
UPDATE na SET b = NULL WHERE a = 1;
DELETE FROM na WHERE a = 3;

-- A built-in window function under a user's name, with named arguments
-- and defaults.
CREATE TABLE wt (four INT, ten INT);
INSERT INTO wt VALUES (0, 0), (0, 4), (1, 1), (1, 5), (1, 9), (2, NULL), (3, 3);
CREATE FUNCTION nth_value_def(val anyelement, n integer = 1) RETURNS anyelement
  LANGUAGE internal WINDOW IMMUTABLE STRICT AS 'window_nth_value';
CREATE FUNCTION lag_def(val anyelement, off integer = 2) RETURNS anyelement
  LANGUAGE internal WINDOW AS 'window_lag_with_offset';
SELECT ten, four, nth_value_def(n := 2, val := ten) OVER (PARTITION BY four ORDER BY ten) FROM wt;
SELECT ten, four, nth_value_def(ten) OVER (PARTITION BY four ORDER BY ten ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
  lag_def(ten) OVER (ORDER BY ten, four), lag_def(off => 1, val => four) OVER (ORDER BY ten, four)
FROM wt;
-- sluice: error window function nth_value_def requires an OVER clause
SELECT nth_value_def(ten) FROM wt;
INSERT INTO wt VALUES (0, 8), (3, NULL);
DELETE FROM wt WHERE ten = 4;
UPDATE wt SET four = 1 WHERE ten = 3;

-- A SQL function that returns one value, in FROM: one row, its value or
-- a composite value's fields.
CREATE TYPE pr AS (q1 bigint, q2 bigint);
CREATE FUNCTION mkpr(bigint, bigint) RETURNS pr AS $$ SELECT ROW($1, $2)::pr $$ LANGUAGE sql;
CREATE FUNCTION twice(x int) RETURNS int AS $$ SELECT 2 * x $$ LANGUAGE sql;
SELECT * FROM mkpr(1, 2);
SELECT * FROM twice(21);
SELECT t FROM twice(4) AS t;
SELECT * FROM twice(4) AS t (v);
CREATE TABLE nums (n int);
INSERT INTO nums VALUES (1), (2), (NULL);
SELECT n, d, p.q2 FROM nums, twice(n) AS d, mkpr(n, n * 10) AS p;
INSERT INTO nums VALUES (5);
DELETE FROM nums WHERE n = 1;
SELECT n, d, p.q2 FROM nums, twice(n) AS d, mkpr(n, n * 10) AS p;
-- A set-returning SQL function of one column in an ungrouped select list:
-- a LATERAL call in FROM.
CREATE FUNCTION sillysrf(int) RETURNS SETOF int AS 'values (1),(10),(2),($1)' LANGUAGE sql IMMUTABLE;
CREATE TABLE srf_t (id INT, k INT);
INSERT INTO srf_t VALUES (1, 5), (2, 7);
SELECT sillysrf(42);
SELECT sillysrf(-1) ORDER BY 1;
SELECT id, sillysrf(k) * 2 AS d FROM srf_t;
SELECT id, sillysrf(k) AS s FROM srf_t WHERE id > 1 ORDER BY s;
INSERT INTO srf_t VALUES (3, 9);
DELETE FROM srf_t WHERE id = 1;
SELECT srf_t.*, sillysrf(k) FROM srf_t;
-- A bare * would show the LATERAL call's column too: not yet.
-- sluice: error a set-returning SQL function outside FROM is not supported yet
SELECT *, sillysrf(k) FROM srf_t;
