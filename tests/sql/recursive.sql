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
-- WITH RECURSIVE inside a subquery that reads the enclosing query's columns.
CREATE TABLE rec_outer (four INT, ten INT);
INSERT INTO rec_outer VALUES (1, 1), (2, 1), (3, 2);
-- sluice: error WITH RECURSIVE in a subquery that reads an enclosing query's columns is not supported yet
SELECT sum(o.four), sum(ss.a) FROM rec_outer o CROSS JOIN LATERAL (WITH RECURSIVE x(a) AS (SELECT o.four AS a UNION SELECT a + 1 FROM x WHERE a < 10) SELECT * FROM x) ss WHERE o.ten = 1;
-- sluice: error WITH RECURSIVE in a subquery that reads an enclosing query's columns is not supported yet
SELECT four, (WITH RECURSIVE x(a) AS (SELECT 1 UNION SELECT a + 1 FROM x WHERE a < 3) SELECT sum(a) + o.four FROM x) FROM rec_outer o;
SELECT four, (WITH RECURSIVE x(a) AS (SELECT 1 UNION SELECT a + 1 FROM x WHERE a < 3) SELECT sum(a) FROM x) FROM rec_outer o;
