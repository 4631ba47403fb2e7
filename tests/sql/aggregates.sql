-- Aggregates beyond COUNT, SUM, AVG, MIN and MAX: BOOL_AND, EVERY and
-- BOOL_OR, grouped, global and over windows, as rows come, change and go.
CREATE TABLE b (k INT PRIMARY KEY, g INT, p BOOLEAN, q BOOLEAN, n NUMERIC(10,2));
INSERT INTO b VALUES (1, 1, TRUE, NULL, 1.5), (2, 1, FALSE, TRUE, NULL), (3, 2, NULL, FALSE, 2.25);
SELECT bool_and(p), bool_or(p), every(q), bool_and(NOT q), bool_or(q AND p) FROM b;
SELECT g, bool_and(p), bool_or(p), every(p), bool_or(q) FROM b GROUP BY g;
SELECT g FROM b GROUP BY g HAVING bool_or(p);
SELECT k, bool_and(p) OVER (ORDER BY k), bool_or(q) OVER (PARTITION BY g), every(p) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM b;
-- A sample's statistics over one value are NULL, even over an infinity.
SELECT var_samp(n), stddev_samp(n) FROM b WHERE k = 1;
INSERT INTO b VALUES (4, 2, TRUE, TRUE, 3), (5, 3, NULL, NULL, NULL);
UPDATE b SET p = TRUE WHERE k = 2;
DELETE FROM b WHERE k = 1;
SELECT bool_and(p), bool_or(p), every(q), bool_and(NOT q), bool_or(q AND p) FROM b;
SELECT g, bool_and(p), bool_or(p), every(p), bool_or(q) FROM b GROUP BY g;
SELECT k, bool_and(p) OVER (ORDER BY k), bool_or(q) OVER (PARTITION BY g), every(p) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM b;
SELECT var_samp(x), stddev_samp(x), var_pop(x), stddev_pop(x) FROM (VALUES ('inf'::numeric)) v(x);
SELECT var_samp(x), stddev_samp(x) FROM (VALUES ('nan'::numeric), (1)) v(x);
SELECT bool_and(NULL), bool_or(NULL) FROM b;
-- sluice: error function bool_and(integer) does not exist
SELECT bool_and(k) FROM b;
-- The hypothetical-set aggregates: where a row of the given values would
-- rank among the group's rows, NULLs sorting as the ORDER BY says.
CREATE TABLE h (k INT PRIMARY KEY, g INT, x INT, s TEXT);
INSERT INTO h VALUES (1, 1, 1, 'fred'), (2, 1, 1, 'jim'), (3, 1, 2, NULL), (4, 1, 2, 'adam'), (5, 1, 3, 'zed'), (6, 2, NULL, 'bob'), (7, 2, 4, 'al'), (8, 2, 5, 'x');
SELECT rank(3) WITHIN GROUP (ORDER BY x) FROM h;
SELECT g, rank(2) WITHIN GROUP (ORDER BY x), dense_rank(2) WITHIN GROUP (ORDER BY x), percent_rank(2) WITHIN GROUP (ORDER BY x), cume_dist(2) WITHIN GROUP (ORDER BY x) FROM h GROUP BY g;
SELECT g, rank(4) WITHIN GROUP (ORDER BY x DESC), dense_rank(4) WITHIN GROUP (ORDER BY x DESC NULLS LAST), percent_rank(NULL) WITHIN GROUP (ORDER BY x), cume_dist(NULL) WITHIN GROUP (ORDER BY x NULLS FIRST) FROM h GROUP BY g;
SELECT rank('b') WITHIN GROUP (ORDER BY s), rank(2, 'b') WITHIN GROUP (ORDER BY x, s), cume_dist(2, 'b') WITHIN GROUP (ORDER BY x DESC, s), percent_rank(1, 'jim') WITHIN GROUP (ORDER BY x, s DESC) FROM h;
SELECT x, dense_rank(x) WITHIN GROUP (ORDER BY x), rank('3') WITHIN GROUP (ORDER BY x) FROM h GROUP BY x;
INSERT INTO h VALUES (9, 2, 2, 'b'), (10, 1, NULL, NULL);
UPDATE h SET x = 0 WHERE k = 1;
DELETE FROM h WHERE k = 7;
SELECT g, rank(2) WITHIN GROUP (ORDER BY x), dense_rank(2) WITHIN GROUP (ORDER BY x), percent_rank(2) WITHIN GROUP (ORDER BY x), cume_dist(2) WITHIN GROUP (ORDER BY x) FROM h GROUP BY g;
SELECT rank('b') WITHIN GROUP (ORDER BY s), rank(2, 'b') WITHIN GROUP (ORDER BY x, s), cume_dist(2, 'b') WITHIN GROUP (ORDER BY x DESC, s), percent_rank(1, 'jim') WITHIN GROUP (ORDER BY x, s DESC) FROM h;
SELECT percent_rank(0) WITHIN GROUP (ORDER BY x), cume_dist(0) WITHIN GROUP (ORDER BY x), rank(0) WITHIN GROUP (ORDER BY x), dense_rank(0) WITHIN GROUP (ORDER BY x) FROM h WHERE k < 0;
-- FILTER on a hypothetical-set aggregate: the rows it leaves out count
-- neither before the hypothetical row nor in the group.
SELECT g, rank(2) WITHIN GROUP (ORDER BY x) FILTER (WHERE s <> 'b'), dense_rank(2) WITHIN GROUP (ORDER BY x) FILTER (WHERE k > 2), percent_rank(2) WITHIN GROUP (ORDER BY x) FILTER (WHERE s IS NOT NULL), cume_dist(2, 'b') WITHIN GROUP (ORDER BY x, s) FILTER (WHERE x < 3) FROM h GROUP BY g;
-- NULLS FIRST and NULLS LAST of one hypothetical row: two calls, not one.
SELECT rank(NULL::int) WITHIN GROUP (ORDER BY x NULLS FIRST), rank(NULL::int) WITHIN GROUP (ORDER BY x NULLS LAST), count(CASE WHEN x IS NULL THEN 1 END), count(CASE WHEN x IS NOT NULL THEN 1 END) FROM h;
SELECT rank(1) WITHIN GROUP (ORDER BY x) FILTER (WHERE false), percent_rank(1) WITHIN GROUP (ORDER BY x) FILTER (WHERE NULL), cume_dist(1) WITHIN GROUP (ORDER BY x) FILTER (WHERE k > 100) FROM h;
-- sluice: error function rank(integer, integer) does not exist
SELECT rank(1, 2) WITHIN GROUP (ORDER BY x) FROM h;
SELECT mode() WITHIN GROUP (ORDER BY x) FROM h;
-- sluice: error function mode takes no argument and one ORDER BY key
SELECT mode(1) WITHIN GROUP (ORDER BY x) FROM h;
-- STRING_AGG of bytea, with a bytea separator.
CREATE TABLE bt (k INT, v BYTEA);
SELECT string_agg(v, '') FROM bt;
INSERT INTO bt VALUES (1, '\xff'), (2, '\xaa');
SELECT string_agg(v, '' ORDER BY v), string_agg(v, NULL ORDER BY v DESC) FROM bt;
SELECT string_agg(v, '\x01' ORDER BY v), string_agg(v, '\x02'::bytea ORDER BY v DESC) FROM bt;
SELECT k, string_agg(v, 'x') FROM bt GROUP BY k;
INSERT INTO bt VALUES (1, '\x00'), (3, NULL);
DELETE FROM bt WHERE k = 2;
SELECT k, string_agg(v, '\x2c' ORDER BY v) FROM bt GROUP BY k;
-- percentile_disc and percentile_cont: from the group's non-NULL values in
-- the ORDER BY's order.
CREATE TABLE pc (k INT PRIMARY KEY, g INT, x INT, f REAL, s TEXT);
INSERT INTO pc VALUES (1, 1, 1, 1.5, 'fred'), (2, 1, 3, NULL, 'jim'), (3, 1, NULL, 2.5, 'adam'), (4, 1, 7, 0.25, NULL), (5, 2, 5, 10, 'zed'), (6, 2, 2, -1, 'al');
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM pc;
SELECT g, percentile_cont(0.25) WITHIN GROUP (ORDER BY f), percentile_disc(0.25) WITHIN GROUP (ORDER BY s), percentile_disc(0) WITHIN GROUP (ORDER BY x DESC), percentile_cont(1) WITHIN GROUP (ORDER BY x) FROM pc GROUP BY g;
SELECT p, percentile_cont(p) WITHIN GROUP (ORDER BY x::float8), percentile_disc(p) WITHIN GROUP (ORDER BY x) FROM pc, (VALUES (0::float8), (0.1), (0.4), (0.5), (0.75), (1)) v(p) GROUP BY p;
INSERT INTO pc VALUES (7, 2, 11, 'inf', 'b'), (8, 3, NULL, NULL, NULL);
UPDATE pc SET x = 4 WHERE k = 1;
DELETE FROM pc WHERE k = 6;
SELECT g, percentile_cont(0.25) WITHIN GROUP (ORDER BY f), percentile_disc(0.25) WITHIN GROUP (ORDER BY s), percentile_disc(0) WITHIN GROUP (ORDER BY x DESC), percentile_cont(1) WITHIN GROUP (ORDER BY x) FROM pc GROUP BY g;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(NULL) WITHIN GROUP (ORDER BY x) FROM pc WHERE k < 0;
-- sluice: error percentile value 1.5 is not between 0 and 1
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM pc;
SELECT percentile_disc(array[0.5]) WITHIN GROUP (ORDER BY x), percentile_cont(array[0, 0.25, NULL, 1]) WITHIN GROUP (ORDER BY x), percentile_disc(array[0.1, 0.9]) WITHIN GROUP (ORDER BY s) FROM pc;
SELECT g, percentile_cont(array[0.5, 0.75]) WITHIN GROUP (ORDER BY f) FROM pc GROUP BY g;
-- A multidimensional array of fractions: the percentiles in its shape.
SELECT g, percentile_disc(array[[NULL, 1, 0.5], [0.75, 0.25, NULL]]) WITHIN GROUP (ORDER BY x), percentile_cont(array[[0.1], [0.9]]) WITHIN GROUP (ORDER BY f) FROM pc GROUP BY g;
-- FILTER on an ordered-set aggregate: the values of the rows it takes.
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE k <> 2), percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FILTER (WHERE s > 'b'), percentile_disc(array[0.1, 1]) WITHIN GROUP (ORDER BY s) FILTER (WHERE x > 2) FROM pc GROUP BY g;
-- sluice: error percentile_disc() of an array of fractions that is not a constant is not supported yet
SELECT percentile_disc(array[x::float8]) WITHIN GROUP (ORDER BY x) FROM pc;
-- mode(): the most frequent value, the first in the ORDER BY on ties.
CREATE TABLE modes (g INT, x INT, t TEXT);
INSERT INTO modes VALUES (1, 3, 'b'), (1, 3, 'a'), (1, 1, 'a'), (1, NULL, NULL), (2, 5, 'z'), (2, 4, 'y'), (3, NULL, NULL);
SELECT g, mode() WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY t DESC), mode() WITHIN GROUP (ORDER BY x DESC) FROM modes GROUP BY g;
SELECT mode() WITHIN GROUP (ORDER BY x) FROM modes;
SELECT g, mode() WITHIN GROUP (ORDER BY x) FILTER (WHERE t <> 'a'), mode() WITHIN GROUP (ORDER BY t) FILTER (WHERE x IS NULL) FROM modes GROUP BY g;
SELECT mode() WITHIN GROUP (ORDER BY t) FROM modes WHERE g > 5;
DELETE FROM modes WHERE x = 3 AND t = 'b';
INSERT INTO modes VALUES (2, 4, 'q');
SELECT g, mode() WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY t) FROM modes GROUP BY g;
-- bool_and's and bool_or's transition functions, strict.
CREATE TABLE bstate (x BOOL, y BOOL);
INSERT INTO bstate VALUES (true, true), (true, false), (false, NULL), (NULL, true), (NULL, NULL), (false, false);
SELECT x, y, booland_statefunc(x, y) AS a, boolor_statefunc(x, y) AS o FROM bstate;
SELECT booland_statefunc(NULL, TRUE) IS NULL AS n, boolor_statefunc(TRUE, FALSE) AS t;
INSERT INTO bstate VALUES (false, true);
