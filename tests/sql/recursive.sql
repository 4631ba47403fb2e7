-- WITH RECURSIVE: each query's rows are PostgreSQL's over every step of the
-- edits below (UNION and UNION ALL, paths in a graph, a tree's depths, a
-- series, the recursive term joined with tables and filtered).
CREATE TABLE edges (src INT, dst INT);
CREATE TABLE tree (id INT PRIMARY KEY, parent INT, name TEXT);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 4), (4, 2), (5, 6), (6, 7);
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'aa'), (5, 4, 'aaa');
-- Reachability (a set; the graph has a cycle).
WITH RECURSIVE reach(a, b) AS (
  SELECT src, dst FROM edges
  UNION
  SELECT r.a, e.dst FROM reach r JOIN edges e ON r.b = e.src
) SELECT a, b FROM reach;
-- Depths in the tree, and each node's path from the root.
WITH RECURSIVE t(id, depth, path) AS (
  SELECT id, 0, name FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT c.id, t.depth + 1, t.path || '/' || c.name FROM tree c JOIN t ON c.parent = t.id
) SELECT * FROM t;
-- A bounded series, and an aggregate over it.
WITH RECURSIVE s(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM s WHERE n < 100)
SELECT count(*), sum(n), max(n) FROM s;
-- Shortest hop counts from node 1 (an aggregate over the recursion).
WITH RECURSIVE hops(node, d) AS (
  SELECT 1, 0
  UNION
  SELECT e.dst, h.d + 1 FROM hops h JOIN edges e ON e.src = h.node WHERE h.d < 6
) SELECT node, min(d) FROM hops GROUP BY node;
-- Descendants counted per node, the recursion joined back to the table.
WITH RECURSIVE anc(id, ancestor) AS (
  SELECT id, parent FROM tree WHERE parent IS NOT NULL
  UNION
  SELECT a.id, t.parent FROM anc a JOIN tree t ON t.id = a.ancestor WHERE t.parent IS NOT NULL
) SELECT t.name, count(a.id) FROM tree t LEFT JOIN anc a ON a.ancestor = t.id GROUP BY t.name;
-- Decimal columns.
WITH RECURSIVE h(x, k) AS (
  SELECT 1.0::numeric(12,4), 0
  UNION ALL SELECT (x / 2 + 0.25)::numeric(12,4), k + 1 FROM h WHERE k < 5
) SELECT * FROM h;
-- A recursive query that is not one, and one whose term has another CTE.
WITH RECURSIVE plain AS (SELECT 1 AS x) SELECT * FROM plain;
WITH RECURSIVE big AS (SELECT src FROM edges WHERE src > 3),
  walk(n) AS (SELECT src FROM big UNION SELECT e.dst FROM walk JOIN edges e ON e.src = walk.n)
SELECT n FROM walk;
-- Errors PostgreSQL gives too.
-- sluice: error column 1 has type integer in non-recursive term but type bigint overall
WITH RECURSIVE bad(n) AS (SELECT 1 UNION ALL SELECT n::bigint + 1 FROM bad WHERE n < 3) SELECT * FROM bad;
-- sluice: error must not appear within its non-recursive term
WITH RECURSIVE bad2(n) AS (SELECT n FROM bad2 UNION SELECT 1) SELECT * FROM bad2;
-- PostgreSQL's rules for the recursive term (it reads the query once, not
-- within a subquery, an outer join's nullable side, EXCEPT's right side,
-- INTERSECT ALL or EXCEPT ALL, and aggregates nothing at the level that
-- reads it), its messages, and the caret where it puts it.
-- sluice: error line 1, column 63: recursive reference to query "r" must not appear more than once
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT r.n + 1 FROM r, r r2 WHERE r.n < 3) SELECT * FROM r;
-- sluice: error line 3, column 55: recursive reference to query "r" must not appear within a subquery
WITH RECURSIVE r(n) AS (
  SELECT 1
  UNION SELECT n + 1 FROM r WHERE n IN (SELECT * FROM r) AND n < 3
) SELECT * FROM r;
-- sluice: error line 1, column 92: recursive reference to query "r" must not appear within a subquery
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE EXISTS (SELECT 1 FROM r r2 WHERE r2.n > 5)) SELECT * FROM r;
-- sluice: error line 1, column 76: recursive reference to query "r" must not appear within an outer join
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.dst FROM edges e LEFT JOIN r ON e.src = r.n) SELECT * FROM r;
-- sluice: error line 1, column 58: recursive reference to query "r" must not appear within an outer join
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.dst FROM r FULL JOIN edges e ON e.src = r.n) SELECT * FROM r;
-- sluice: error line 1, column 58: recursive reference to query "r" must not appear within an outer join
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.dst FROM r RIGHT JOIN edges e ON e.src = r.n) SELECT * FROM r;
-- sluice: error line 1, column 88: recursive reference to query "r" must not appear within EXCEPT
WITH RECURSIVE r(n) AS (SELECT 1 UNION (SELECT dst FROM edges EXCEPT SELECT n + 1 FROM r)) SELECT * FROM r;
-- sluice: error line 1, column 59: recursive reference to query "r" must not appear within EXCEPT
WITH RECURSIVE r(n) AS (SELECT 1 UNION (SELECT n + 1 FROM r EXCEPT ALL SELECT dst FROM edges)) SELECT * FROM r;
-- sluice: error line 1, column 59: recursive reference to query "r" must not appear within INTERSECT
WITH RECURSIVE r(n) AS (SELECT 1 UNION (SELECT n + 1 FROM r INTERSECT ALL SELECT dst FROM edges)) SELECT * FROM r;
-- sluice: error line 1, column 50: recursive reference to query "r" must not appear within a subquery
WITH RECURSIVE r(n) AS (WITH w AS (SELECT * FROM r) SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r;
-- sluice: error line 1, column 47: aggregate functions are not allowed in a recursive query's recursive term
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT max(n) + 1 FROM r WHERE n < 3) SELECT * FROM r;
-- sluice: error line 1, column 90: aggregate functions are not allowed in a recursive query's recursive term
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3 GROUP BY n HAVING count(*) > 0) SELECT * FROM r;
-- sluice: error line 1, column 64: aggregate functions are not allowed in a recursive query's recursive term
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT s.c FROM (SELECT count(*)::int AS c FROM r) s WHERE s.c < 3) SELECT * FROM r;
-- sluice: error line 1, column 85: ORDER BY in a recursive query is not implemented
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 ORDER BY 1) SELECT * FROM r;
-- sluice: error line 1, column 82: LIMIT in a recursive query is not implemented
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 LIMIT 2) SELECT * FROM r;
-- sluice: error line 1, column 83: OFFSET in a recursive query is not implemented
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 OFFSET 1) SELECT * FROM r;
-- sluice: error line 1, column 16: recursive query "r" does not have the form non-recursive-term UNION [ALL] recursive-term
WITH RECURSIVE r(n) AS (SELECT 1 EXCEPT SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r;
-- sluice: error line 2, column 75: recursive reference to query "s" must not appear within a subquery
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3),
  s(m) AS (SELECT 1 UNION SELECT m + 1 FROM s WHERE EXISTS (SELECT 1 FROM s s2 WHERE s2.m > m)) SELECT * FROM s;
-- Terms PostgreSQL accepts that the rules above leave out: the query in a
-- subquery in FROM, on the left of a LEFT JOIN, on the left of EXCEPT or
-- INTERSECT, under DISTINCT or GROUP BY, a WITH query of the term that
-- reads it read twice, an aggregate of another level.
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.dst FROM (SELECT * FROM r) s JOIN edges e ON e.src = s.n) SELECT * FROM r;
WITH RECURSIVE r(n, m) AS (
  SELECT 1, 0 UNION SELECT coalesce(e.dst, 0), r.n FROM r LEFT JOIN edges e ON e.src = r.n WHERE r.n > 0
) SELECT * FROM r;
WITH RECURSIVE r(n) AS (
  SELECT src FROM edges UNION (SELECT n + 1 FROM r WHERE n < 9 EXCEPT SELECT dst FROM edges)
) SELECT * FROM r;
WITH RECURSIVE r(n) AS (
  SELECT 1 UNION ALL (SELECT n + 1 FROM r WHERE n < 9 INTERSECT SELECT dst FROM edges)
) SELECT * FROM r;
WITH RECURSIVE r(n, d) AS (
  SELECT src, 0 FROM edges UNION ALL SELECT DISTINCT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.n WHERE r.d < 4
) SELECT n, d, count(*) FROM r GROUP BY n, d;
WITH RECURSIVE r(n, d) AS (
  SELECT src, 0 FROM edges UNION ALL SELECT e.dst, r.d + 1 FROM r JOIN edges e ON e.src = r.n WHERE r.d < 4 GROUP BY e.dst, r.d
) SELECT n, d, count(*) FROM r GROUP BY n, d;
WITH RECURSIVE r(a, b) AS (
  SELECT src, dst FROM edges
  UNION (WITH w AS (SELECT * FROM r) SELECT w1.a, w2.b FROM w w1 JOIN w w2 ON w1.b = w2.a)
) SELECT * FROM r;
WITH RECURSIVE r(n) AS (
  SELECT 1 UNION SELECT n + (SELECT min(dst) FROM edges) FROM r WHERE n < 9
) SELECT * FROM r;
-- SEARCH DEPTH FIRST and BREADTH FIRST: a column that orders the rows as
-- the walk met them (an array of ROW values of the path; a ROW of the depth
-- and the columns).
WITH RECURSIVE t(id, name) AS (
  SELECT id, name FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT c.id, c.name FROM tree c JOIN t ON c.parent = t.id
) SEARCH DEPTH FIRST BY id SET ord
SELECT * FROM t ORDER BY ord;
WITH RECURSIVE t(id, name) AS (
  SELECT id, name FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT c.id, c.name FROM tree c, t WHERE c.parent = t.id
) SEARCH BREADTH FIRST BY name, id SET ord
SELECT id, name, ord FROM t ORDER BY ord;
WITH RECURSIVE t AS (
  SELECT id, name, 0 AS depth FROM tree WHERE parent IS NULL
  UNION
  SELECT c.id, c.name, t.depth + 1 FROM tree c JOIN t AS t ON c.parent = t.id
) SEARCH DEPTH FIRST BY name SET ord
SELECT name, depth, ord FROM t WHERE depth > 0;
-- CYCLE: the walk stops at a row whose columns it has met before, and marks
-- it; the path is the array of ROW values met.
WITH RECURSIVE walk(a, b) AS (
  SELECT src, dst FROM edges WHERE src = 1
  UNION ALL
  SELECT e.src, e.dst FROM walk w JOIN edges e ON e.src = w.b
) CYCLE a SET looped USING path
SELECT * FROM walk;
WITH RECURSIVE walk(a, b, hops) AS (
  SELECT src, dst, 1 FROM edges
  UNION ALL
  SELECT w.a, e.dst, w.hops + 1 FROM walk w JOIN edges e ON e.src = w.b
) CYCLE a, b SET looped TO 'Y' DEFAULT 'N' USING path
SELECT a, b, hops, looped, path FROM walk WHERE looped = 'Y';
WITH RECURSIVE walk(a, b) AS (
  SELECT src, dst FROM edges WHERE src = 1
  UNION ALL
  SELECT e.src, e.dst FROM walk w JOIN edges e ON e.src = w.b
) SEARCH BREADTH FIRST BY a SET ord CYCLE b SET looped TO 1 DEFAULT 0 USING path
SELECT * FROM walk;
-- Errors PostgreSQL gives too.
-- sluice: error search column "x" not in WITH query column list
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  SEARCH DEPTH FIRST BY x SET ord SELECT * FROM t;
-- sluice: error search sequence column name "id" already used in WITH query column list
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  SEARCH DEPTH FIRST BY id SET id SELECT * FROM t;
-- sluice: error cycle column "id" specified more than once
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  CYCLE id, id SET c USING p SELECT * FROM t;
-- sluice: error cycle mark column name and cycle path column name are the same
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  CYCLE id SET c USING c SELECT * FROM t;
-- sluice: error search sequence column name and cycle path column name are the same
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  SEARCH BREADTH FIRST BY id SET p CYCLE id SET c USING p SELECT * FROM t;
-- sluice: error WITH query is not recursive
WITH RECURSIVE t(id) AS (SELECT 1) SEARCH DEPTH FIRST BY id SET ord SELECT * FROM t;
-- sluice: error the right side of the UNION must be a SELECT
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL (SELECT id + 1 FROM t WHERE id < 3 UNION SELECT 5))
  CYCLE id SET c USING p SELECT * FROM t;
-- sluice: error invalid input syntax for type integer: "x"
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3)
  CYCLE id SET c TO 1 DEFAULT 'x' USING p SELECT * FROM t;
INSERT INTO edges VALUES (7, 8), (8, 5), (1, 9);
DELETE FROM edges WHERE src = 2;
UPDATE tree SET parent = 3 WHERE id = 4;
INSERT INTO tree VALUES (6, 5, 'aaaa'), (7, 3, 'ba');
DELETE FROM tree WHERE id = 2;
INSERT INTO edges VALUES (2, 3);

-- A misspelled WITH query's name gets a suggestion.
-- sluice: error relation "reahc" does not exist (did you mean reach?)
WITH RECURSIVE reach(a) AS (SELECT src FROM edges UNION SELECT a + 1 FROM reahc WHERE a < 3) SELECT * FROM reach;
-- sluice: error relation "totals2" does not exist (did you mean totals?)
WITH totals AS (SELECT src, count(*) AS n FROM edges GROUP BY src) SELECT * FROM totals2;

-- WITH RECURSIVE queries see each other whatever their order, and a
-- recursive query's own WITH is seen by both of its terms.
WITH RECURSIVE
    x(id) AS (SELECT * FROM y UNION ALL SELECT id+1 FROM x WHERE id < 5),
    y(id) AS (values (1))
 SELECT * FROM x;
WITH RECURSIVE t(j) AS (
    WITH RECURSIVE s(i) AS (
        VALUES (1)
        UNION ALL
        SELECT i+1 FROM s WHERE i < 10
    )
    SELECT i FROM s
    UNION ALL
    SELECT j+1 FROM t WHERE j < 10
)
SELECT * FROM t;
-- A random graph of 14 nodes, its edges coming and going over many
-- statements: reachability (UNION, kept up to date by deleting and
-- deriving again), paths along increasing nodes (UNION ALL), and nodes
-- reachable from 0 avoiding blocked ones.
CREATE TABLE g (src INT, dst INT);
CREATE TABLE blocked (n INT);
INSERT INTO g VALUES (1, 5), (8, 8), (10, 13), (1, 3), (9, 9), (8, 6), (12, 9), (8, 13), (11, 12), (12, 7), (12, 12), (9, 7), (3, 0), (9, 1), (1, 4), (13, 1), (7, 0), (13, 10), (7, 10), (5, 3), (6, 4), (5, 5), (12, 6), (11, 8);
WITH RECURSIVE reach(a, b) AS (
  SELECT src, dst FROM g
  UNION
  SELECT r.a, g.dst FROM reach r JOIN g ON r.b = g.src
) SELECT a, b FROM reach;
WITH RECURSIVE up(a, b, len) AS (
  SELECT src, dst, 1 FROM g WHERE src < dst
  UNION ALL
  SELECT u.a, g.dst, u.len + 1 FROM up u JOIN g ON u.b = g.src WHERE g.src < g.dst
) SELECT a, b, len, count(*) FROM up GROUP BY a, b, len;
WITH RECURSIVE open(n) AS (
  SELECT 0
  UNION
  SELECT o.dst FROM open JOIN (
    SELECT * FROM g WHERE NOT EXISTS (SELECT 1 FROM blocked b WHERE b.n = g.dst)) o
  ON o.src = open.n
) SELECT n FROM open;
DELETE FROM blocked WHERE n = 1;
DELETE FROM g WHERE src = 13 AND dst = 10;
INSERT INTO blocked VALUES (4);
DELETE FROM g WHERE src = 5 AND dst = 5;
INSERT INTO blocked VALUES (11);
DELETE FROM g WHERE src = 9 AND dst = 7;
INSERT INTO g VALUES (7, 6), (1, 6), (9, 8);
INSERT INTO g VALUES (13, 1), (6, 8), (12, 12);
INSERT INTO blocked VALUES (7);
DELETE FROM blocked WHERE n = 4;
DELETE FROM g WHERE src % 3 = 0;
INSERT INTO g VALUES (3, 3), (6, 9), (9, 12), (12, 3);

-- A WITH query inside a recursive query's body that has its name hides it:
-- the outer one does not read itself, and is not recursive.
WITH RECURSIVE w1(c1) AS
 (WITH RECURSIVE w6(c6) AS
   (WITH w6(c6) AS (SELECT src FROM edges) SELECT * FROM w6)
  SELECT * FROM w6)
SELECT * FROM w1;
-- But a WITH query before the one that hides the name still sees it.
WITH RECURSIVE t(n) AS (
    SELECT 1
    UNION ALL
    (WITH a AS (SELECT n + 1 AS n FROM t WHERE n < 4), t AS (SELECT 10 AS n) SELECT n FROM a)
)
SELECT * FROM t;

-- PostgreSQL computes a recursive query only as far as its reader asks
-- (here, 10 rows); Sluice computes all of its rows.
-- sluice: error A recursive query that does not end by itself is not supported yet
WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10;

-- A recursive query in the recursive term of another, whose own recursive
-- term reads the outer one's working table.
WITH RECURSIVE q(n) AS (
  SELECT DISTINCT src FROM edges WHERE src <= 2
  UNION ALL
  (WITH RECURSIVE x(m) AS (SELECT 0 UNION ALL SELECT x.m + q.n FROM x, q WHERE x.m + q.n < 4)
   SELECT m + 10 FROM x WHERE m > 0)
) SELECT n, count(*) FROM q GROUP BY n;
-- WITH RECURSIVE inside a subquery that reads the enclosing query's columns.
CREATE TABLE rec_outer (four INT, ten INT);
INSERT INTO rec_outer VALUES (1, 1), (2, 1), (3, 2);
-- sluice: error WITH RECURSIVE in a subquery that reads an enclosing query's columns is not supported yet
SELECT sum(o.four), sum(ss.a) FROM rec_outer o CROSS JOIN LATERAL (WITH RECURSIVE x(a) AS (SELECT o.four AS a UNION SELECT a + 1 FROM x WHERE a < 10) SELECT * FROM x) ss WHERE o.ten = 1;
-- sluice: error WITH RECURSIVE in a subquery that reads an enclosing query's columns is not supported yet
SELECT four, (WITH RECURSIVE x(a) AS (SELECT 1 UNION SELECT a + 1 FROM x WHERE a < 3) SELECT sum(a) + o.four FROM x) FROM rec_outer o;
SELECT four, (WITH RECURSIVE x(a) AS (SELECT 1 UNION SELECT a + 1 FROM x WHERE a < 3) SELECT sum(a) FROM x) FROM rec_outer o;
