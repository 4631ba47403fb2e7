-- Subqueries that read the columns of queries two or more levels up, and
-- subqueries in FROM that read the enclosing query: each level is bound
-- over the distinct values of the columns it reads, its own and those its
-- subqueries read of the queries around it.
CREATE TABLE o (id int primary key, k int, g text);
CREATE TABLE m (id int primary key, o_id int, v int);
CREATE TABLE n (id int primary key, m_id int, w int);
INSERT INTO o VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, 'x'), (4, 5, NULL);
INSERT INTO m VALUES (1, 1, 3), (2, 1, 12), (3, 2, 25), (4, 3, 1), (5, 9, 7);
INSERT INTO n VALUES (1, 1, 2), (2, 2, 15), (3, 3, 30), (4, 3, 1), (5, 4, 0);
-- a subquery two levels down reads the outermost query's columns
SELECT o.id, (SELECT count(*) FROM m WHERE m.o_id = o.id AND EXISTS (SELECT 1 FROM n WHERE n.m_id = m.id AND n.w < o.k)) FROM o;
SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM m WHERE m.o_id = o.id AND m.v > (SELECT min(w) FROM n WHERE n.w > o.k - 20));
SELECT o.id, (SELECT (SELECT o.k + m.v) FROM m WHERE m.id = o.id) FROM o;
SELECT o.id, (SELECT (SELECT (SELECT o.g))) FROM o;
-- a derived table in a subquery reads the enclosing query
SELECT o.id, (SELECT r FROM (SELECT o.k AS q) x, (SELECT o.id AS r) y WHERE x.q > 5) FROM o;
SELECT o.id, (SELECT sum(t.v) FROM (SELECT v FROM m WHERE m.o_id = o.id) t) FROM o;
SELECT o.id, s.c FROM o, LATERAL (SELECT count(*) AS c FROM (SELECT * FROM m WHERE m.v < o.k) t) s;
-- a nested subquery inside LATERAL
SELECT o.id, s.x FROM o CROSS JOIN LATERAL (SELECT (SELECT o.k) AS x) s;
SELECT o.id, s.* FROM o, LATERAL (SELECT m.id, (SELECT max(n.w) FROM n WHERE n.m_id = m.id AND n.w <= o.k) AS top FROM m WHERE m.o_id = o.id) s;
-- the outer table's whole row
SELECT (SELECT o) IS NULL, (SELECT (o.*)::text) FROM o;
UPDATE o SET k = 1 WHERE id = 1;
INSERT INTO n VALUES (6, 2, 3), (7, 5, 4);
DELETE FROM m WHERE id = 3;
INSERT INTO m VALUES (6, 2, 40), (7, 4, 6);
UPDATE n SET w = 100 WHERE id = 2;
DELETE FROM o WHERE id = 3;
INSERT INTO o VALUES (5, 50, 'z');
-- LATERAL items read earlier LATERAL items; * shows the columns in FROM order
SELECT o.id, x.d, y.e FROM o, LATERAL (SELECT o.k * 2 AS d) x, LATERAL (SELECT x.d + o.id AS e) y;
SELECT * FROM o, LATERAL (SELECT o.k * 2 AS d) x, m WHERE m.o_id = o.id;
SELECT * FROM o, LATERAL (SELECT count(*) AS c FROM m WHERE m.o_id = o.id) x, LATERAL (SELECT x.c + 1 AS c1) y, n WHERE n.id = o.id;
-- inside a correlated subquery, LATERAL items read its outer columns and its own
SELECT o.id, (SELECT sum(l.t) FROM m, LATERAL (SELECT m.v + o.k AS t) l WHERE m.o_id = o.id) FROM o;
SELECT o.id, (SELECT max(z.q) FROM m, LATERAL (SELECT n.w * o.id AS q FROM n WHERE n.m_id = m.id) z) FROM o;
-- outer columns in a grouped subquery's select list and HAVING
SELECT o.id, s.* FROM o LEFT JOIN LATERAL (SELECT o.g, m.o_id, count(*) AS c FROM m GROUP BY m.o_id) s ON true;
SELECT o.id, (SELECT count(*) FROM m GROUP BY () HAVING o.k > 5) FROM o;
SELECT o.id, (SELECT max(v) + o.k FROM m WHERE m.o_id = o.id) FROM o;
UPDATE o SET k = 7 WHERE id = 2;
INSERT INTO m VALUES (8, 5, 11);
DELETE FROM n WHERE id = 1;
-- an aggregate of only outer columns belongs to the outer query (PostgreSQL):
-- one row of the outer query, and the subquery a row per row of m, too many
SELECT (SELECT count(*) FILTER (WHERE o.k <> 0) FROM m) FROM o;
SELECT (SELECT max(o.k) FROM m) FROM o;
SELECT (SELECT max(o.k) FROM m LIMIT 1) FROM o;
SELECT o.id, (SELECT count(*) FILTER (WHERE m.v > o.k) FROM m) FROM o;

-- WITH inside a subquery that reads the enclosing query: its queries read
-- the enclosing row too.
CREATE TABLE wq (id INT, g INT, v INT);
INSERT INTO wq VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, NULL, 7);
SELECT id, (WITH c AS (SELECT wq.v * 2 AS d) SELECT d FROM c) FROM wq;
SELECT id, (WITH c(d) AS (VALUES (wq.v)) SELECT (SELECT d FROM c)) FROM wq;
SELECT id, (WITH s AS (SELECT v FROM wq w2 WHERE w2.g = wq.g), t AS (SELECT sum(v) AS total FROM s)
            SELECT total FROM t) FROM wq;
SELECT id FROM wq WHERE EXISTS (WITH big AS (SELECT * FROM wq w2 WHERE w2.v > wq.v) SELECT 1 FROM big b1, big b2 WHERE b1.id < b2.id);
SELECT id, (WITH c AS (SELECT wq.id AS i) SELECT count(*) FROM c, wq w2 WHERE w2.id >= c.i) FROM wq;
UPDATE wq SET v = 30 WHERE id = 3;
INSERT INTO wq VALUES (5, 2, 1);
DELETE FROM wq WHERE id = 1;
SELECT id, (WITH s AS (SELECT v FROM wq w2 WHERE w2.g = wq.g), t AS (SELECT sum(v) AS total FROM s)
            SELECT total FROM t) FROM wq;
SELECT id FROM wq WHERE EXISTS (WITH big AS (SELECT * FROM wq w2 WHERE w2.v > wq.v) SELECT 1 FROM big b1, big b2 WHERE b1.id < b2.id);

-- An output of a subquery in FROM that the query around it never reads is
-- not computed, as in PostgreSQL: this scalar subquery would find more than
-- one row for q1 = 123.
CREATE TABLE i8_pairs (q1 BIGINT, q2 BIGINT);
INSERT INTO i8_pairs VALUES (123, 456), (123, 4567), (4567, 123);
SELECT q1 FROM
(
  WITH t_cte AS (SELECT * FROM i8_pairs t)
  SELECT q1, (SELECT q2 FROM t_cte WHERE t_cte.q1 = i8.q1) AS t_sub
  FROM i8_pairs i8
) ss;
SELECT ss.q1, n FROM (SELECT q1, (SELECT q2 FROM i8_pairs t WHERE t.q1 = i8.q1) AS t_sub FROM i8_pairs i8) ss
  JOIN (SELECT q1, count(*) AS n FROM i8_pairs GROUP BY q1) c USING (q1);
INSERT INTO i8_pairs VALUES (4567, -4567), (7, 7);
DELETE FROM i8_pairs WHERE q2 = 4567;
UPDATE i8_pairs SET q1 = 123 WHERE q1 = 7;
