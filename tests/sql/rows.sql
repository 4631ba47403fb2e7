-- Row constructors, ROW(a, b) and (a, b): values of an anonymous record
-- type (printed as PostgreSQL's record_out does), and comparisons of two
-- rows field by field, with PostgreSQL's NULL rules.
CREATE TABLE pairs (a INT, b INT, t TEXT);
INSERT INTO pairs VALUES (1, 2, 'x'), (1, 3, 'y y'), (2, 1, NULL), (NULL, 1, 'z'), (2, NULL, ''),
  (3, 3, 'a,b'), (4, 0, 'q"(x)');
SELECT a, b, ROW(a, b) FROM pairs;
SELECT ROW(a, t), (b, t, 'lit'), ROW(a) FROM pairs;
SELECT a, b FROM pairs WHERE (a, b) = (1, 2);
SELECT a, b, (a, b) < (1, 3), (a, b) <= (2, 1), (a, b) > (1, 2), (a, b) >= (2, 1),
  (a, b) <> (1, 2), ROW(a, b) = ROW(b, a) FROM pairs;
SELECT a, b FROM pairs WHERE (a, b) IN ((1, 2), (2, 1), (4, 0));
SELECT a, b FROM pairs WHERE (a, b) NOT IN ((1, 2), (2, 1));
SELECT a, b FROM pairs WHERE (a, b + 1) IN ((1, 3));
SELECT ROW(a, b) FROM pairs UNION SELECT ROW(1, 5);
SELECT DISTINCT ROW(a % 2, b % 2) FROM pairs;
SELECT ROW(a, b), count(*) FROM pairs GROUP BY ROW(a, b);
SELECT ARRAY[ROW(a, t), ROW(b, 'w')] FROM pairs;
SELECT (a, b) < (a, b + 1), (t, a) > ('a', 1) FROM pairs;
-- sluice: error unequal number of entries in row expressions
SELECT (a, b) = (1, 2, 3) FROM pairs;
UPDATE pairs SET b = 2 WHERE a = 1;
DELETE FROM pairs WHERE a = 2;
INSERT INTO pairs VALUES (5, 5, NULL), (1, 2, 'again');
