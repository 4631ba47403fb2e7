-- Functions in LANGUAGE plpgsql, compiled to one SQL expression (or query)
-- and inlined where they are called: IF, CASE, assignments, composite
-- fields, RETURN QUERY, RAISE; views over tables that call them.
CREATE TABLE t (a INT, b INT, s TEXT);
INSERT INTO t VALUES (1, 2, 'x'), (5, 5, 'y'), (20, 1, 'z'), (NULL, 3, 'n');

-- IF / ELSIF / ELSE, DECLARE with a default, assignment; a branch that
-- falls through runs the rest of the body. RAISE NOTICE has no effect.
CREATE FUNCTION classify(x int, y int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  s int := x + y;
  bonus int = 100;
BEGIN
  RAISE NOTICE 'classify(%, %)', x, y;
  IF s > 10 THEN
    RETURN s * 2;
  ELSIF s > 5 THEN
    s := s + bonus;
  ELSIF s IS NULL THEN
    RETURN -1;
  ELSE
    RETURN 0;
  END IF;
  s := s + 1;
  RETURN s;
END $$;
SELECT classify(1, 2), classify(3, 4), classify(10, 20), classify(NULL, 1);
SELECT a, b, classify(a, b) FROM t;

-- $n names a parameter too; STRICT gives NULL for a NULL argument.
CREATE FUNCTION pick(text, text) RETURNS text STRICT IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  IF length($1) >= length($2) THEN RETURN $1; END IF;
  RETURN $2;
END $$;
SELECT pick('ab', 'c'), pick('a', 'bc'), pick(NULL, 'x');
SELECT s, pick(s, 'yy') FROM t;

-- A nested IF, a CASE statement and a nested block.
CREATE FUNCTION grade(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  CASE
    WHEN n IS NULL THEN r := 'none';
    WHEN n < 3 THEN
      IF n < 0 THEN r := 'negative'; ELSE r := 'small'; END IF;
    ELSE
      BEGIN
        r := 'big';
      END;
  END CASE;
  CASE n % 2 WHEN 0 THEN r := r || ' even'; WHEN 1, -1 THEN r := r || ' odd'; ELSE NULL; END CASE;
  RETURN r;
END $$;
SELECT a, grade(a) FROM t;
SELECT grade(-3), grade(2);

-- Composite variables: field assignment builds a row of the type.
CREATE TYPE avg_state AS (total bigint, count bigint);
CREATE FUNCTION avg_transfn(state avg_state, n int) RETURNS avg_state AS $$
DECLARE new_state avg_state;
BEGIN
  RAISE NOTICE 'avg_transfn called with %', n;
  IF state IS NULL THEN
    IF n IS NOT NULL THEN
      new_state.total := n;
      new_state.count := 1;
      RETURN new_state;
    END IF;
    RETURN NULL;
  ELSIF n IS NOT NULL THEN
    state.total := state.total + n;
    state.count := state.count + 1;
    RETURN state;
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE FUNCTION avg_finalfn(state avg_state) RETURNS int4 AS $$
BEGIN
  IF state IS NULL THEN
    RETURN NULL;
  ELSE
    RETURN state.total / state.count;
  END IF;
END
$$ LANGUAGE plpgsql;
SELECT avg_transfn(NULL, 3), avg_transfn(ROW(10, 2)::avg_state, 5),
       avg_transfn(ROW(10, 2)::avg_state, NULL), avg_transfn(NULL, NULL);
SELECT a, b, avg_finalfn(avg_transfn(ROW(b, 2)::avg_state, a)) FROM t;
SELECT (avg_transfn(ROW(a, b)::avg_state, 7)).count FROM t;

-- A DECLAREd variable without a default is NULL; an array value.
CREATE FUNCTION make_pair(int, int) RETURNS int[] AS '
  DECLARE x int[]; y int;
  BEGIN
    IF y IS NULL THEN x := ARRAY[$1, $2]; END IF;
    RETURN x;
  END' LANGUAGE plpgsql VOLATILE;
SELECT make_pair(1, 2), make_pair(a, b) FROM t;

-- RAISE EXCEPTION is an error on exactly the rows that reach it.
CREATE FUNCTION checked(x int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF x < 0 THEN
    RAISE EXCEPTION 'negative value: % (%%)', x;
  END IF;
  RETURN x * 10;
END $$;
SELECT a, checked(a) FROM t;
SELECT checked(-2);
CREATE FUNCTION balkifnull(int8, int4) RETURNS int8 STRICT LANGUAGE plpgsql AS $$
BEGIN
    IF $1 IS NULL THEN
       RAISE 'erroneously called with NULL argument';
    END IF;
    RETURN NULL;
END$$;
SELECT balkifnull(1, 2), balkifnull(NULL, 2);

-- A path that reaches the end without RETURN is an error where it is taken.
CREATE FUNCTION positive_only(x int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF x > 0 THEN RETURN x; END IF;
END $$;
SELECT positive_only(3);
SELECT positive_only(0);
SELECT a, positive_only(a) FROM t WHERE a > 0;

-- RETURN QUERY with OUT parameters (SETOF record) and RETURNS TABLE.
CREATE FUNCTION gstest_data(v integer, OUT a integer, OUT b integer) RETURNS SETOF record AS $f$
BEGIN
  RETURN QUERY SELECT v, i FROM generate_series(1, 3) i;
END;
$f$ LANGUAGE plpgsql;
SELECT * FROM gstest_data(2);
SELECT v.x, g.a, g.b FROM (VALUES (1), (2)) v(x), gstest_data(v.x) g;
CREATE FUNCTION rows_upto(n int) RETURNS TABLE (k int, label text) LANGUAGE plpgsql AS $$
BEGIN
  IF n IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT t.a, t.s FROM t WHERE t.a <= n;
  IF n > 10 THEN
    RETURN QUERY SELECT 1000, 'many';
  END IF;
END $$;
SELECT * FROM rows_upto(5);
SELECT * FROM rows_upto(NULL);
SELECT o.b, r.k, r.label FROM t AS o, rows_upto(o.b * 10) r;
CREATE FUNCTION evens(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT 0;
  IF n >= 2 THEN RETURN NEXT 2; END IF;
  IF n >= 4 THEN RETURN NEXT 4; END IF;
END $$;
SELECT o.a, e FROM t AS o, evens(o.a) e;
CREATE FUNCTION strict_rows(n int) RETURNS SETOF int STRICT LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT 1;
  RETURN NEXT coalesce(n, 5);
END $$;
SELECT o.a, r FROM t AS o, strict_rows(o.a) r;

-- A function that calls another, and a query inside an expression.
CREATE FUNCTION total_b() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r bigint := (SELECT sum(b) FROM t);
BEGIN
  RETURN coalesce(r, 0) + classify(1, 1);
END $$;
SELECT total_b();

-- Views over the table, kept up to date as it changes.
INSERT INTO t VALUES (7, 0, 'w'), (-4, 2, 'v'), (3, NULL, 'u');
DELETE FROM t WHERE a = 20;
UPDATE t SET b = b + 10 WHERE a = 5;
SELECT a, b, classify(a, b), grade(a), pick(s, 'zz') FROM t;
SELECT grade(a) AS g, count(*), sum(classify(a, b)) FROM t GROUP BY grade(a);
SELECT a FROM t WHERE classify(a, b) > 10;
SELECT a, b, avg_finalfn(avg_transfn(ROW(b, 1)::avg_state, a)) FROM t;
SELECT o.a, e FROM t AS o, evens(o.a) e;
UPDATE t SET a = 2 WHERE a = -4;
INSERT INTO t VALUES (9, 9, 'q');
DELETE FROM t WHERE a IS NULL;
SELECT a, b, classify(a, b), grade(a) FROM t;
SELECT a, checked(a) FROM t;
SELECT o.b, r.k, r.label FROM t AS o, rows_upto(o.b) r;
-- sluice: error negative value
SELECT a, checked(a - 3) FROM t;

-- An argument that reads the caller's column, passed into a subquery of
-- the body over a table with a column of the same name.
CREATE FUNCTION count_b(x int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM t WHERE t.b = x);
END $$;
SELECT o.a, count_b(a) FROM t AS o;

-- A name that is both a variable and a column of the query is ambiguous.
CREATE FUNCTION ambiguous(a int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM t WHERE t.b = a);
END $$;
SELECT ambiguous(2);

-- What is refused: loops, EXECUTE, PERFORM, SQL statements, exception
-- blocks, GET DIAGNOSTICS.
CREATE FUNCTION loops(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE s int := 0;
BEGIN
  FOR i IN 1..n LOOP s := s + i; END LOOP;
  RETURN s;
END $$;
-- sluice: error FOR loops in a plpgsql function
SELECT loops(3);
CREATE FUNCTION whiles(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  WHILE n > 10 LOOP n := n - 10; END LOOP;
  RETURN n;
END $$;
-- sluice: error WHILE loops in a plpgsql function
SELECT whiles(35);
CREATE FUNCTION plainloop(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  LOOP
    EXIT WHEN n > 10;
    n := n * 2;
  END LOOP;
  RETURN n;
END $$;
-- sluice: error LOOP in a plpgsql function
SELECT plainloop(3);
CREATE FUNCTION dynamic(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  EXECUTE 'SELECT ' || n INTO r;
  RETURN r;
END $$;
-- sluice: error EXECUTE in a plpgsql function
SELECT dynamic(3);
CREATE FUNCTION performs(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  PERFORM n + 1;
  RETURN n;
END $$;
-- sluice: error PERFORM in a plpgsql function
SELECT performs(3);
CREATE FUNCTION selects_into(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int;
BEGIN
  SELECT max(a) INTO r FROM t WHERE a < n;
  RETURN r;
END $$;
-- sluice: error SQL statements
SELECT selects_into(3);
CREATE FUNCTION catches(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RETURN 10 / n;
EXCEPTION WHEN division_by_zero THEN
  RETURN 0;
END $$;
-- sluice: error EXCEPTION blocks in a plpgsql function
SELECT catches(0);
