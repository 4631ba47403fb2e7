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

-- User aggregates are refused, and their calls say so.
CREATE TABLE agg_t (a INT);
INSERT INTO agg_t VALUES (1), (2);
-- sluice: error CREATE AGGREGATE is not supported yet
CREATE AGGREGATE my_sum (int4) (stype = int4, sfunc = int4pl);
-- sluice: error aggregates written by users (CREATE AGGREGATE) (function my_sum) is not supported yet
SELECT my_sum(a) FROM agg_t;
