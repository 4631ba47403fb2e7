-- MIN, MAX and top-k over append-only tables keep only their current best
-- rows (docs/sql.md, "Append-only tables"); their answers are PostgreSQL's,
-- with the data arriving over several steps. The same queries over a table
-- that takes deletes keep the whole group.
CREATE TABLE bid (auction INT, bidder INT, price INT, note TEXT, at INT) WITH (append_only = true);
CREATE TABLE auction (id INT, category INT, opens INT, closes INT) WITH (append_only = true);
CREATE TABLE plain (g INT, v INT, s TEXT);
INSERT INTO auction VALUES (1, 10, 0, 100), (2, 10, 0, 50), (3, 20, 10, 200), (4, 20, 0, 5);
INSERT INTO bid VALUES (1, 7, 100, 'a', 1), (1, 8, 120, 'b', 2), (2, 7, 50, NULL, 3);
INSERT INTO bid VALUES (1, 9, 120, 'c', 4), (2, 9, 40, 'zz', 5), (3, 7, NULL, 'n', 6);
INSERT INTO bid VALUES (3, 8, 300, 'd', 7), (1, 7, 90, 'e', 8), (2, 8, 55, 'f', 60);
INSERT INTO bid VALUES (4, 7, 1, 'late', 9), (3, 9, 300, 'd', 11), (1, 8, 121, 'g', 12);
INSERT INTO plain VALUES (1, 5, 'x'), (1, 9, 'y'), (2, NULL, NULL), (2, 3, 'w');
INSERT INTO plain VALUES (1, 7, 'z'), (3, 1, 'a');
DELETE FROM plain WHERE v = 9;
-- sluice: error is append_only: it takes no deletes
DELETE FROM bid WHERE false;
-- sluice: error is append_only: it takes no updates
UPDATE bid SET price = 0 WHERE false;
SELECT auction, MAX(price), MIN(price), COUNT(*), SUM(price), AVG(price) FROM bid GROUP BY auction;
SELECT auction, MAX(note), MIN(note), COUNT(note) FROM bid GROUP BY auction;
SELECT MAX(price), MIN(bidder) FROM bid;
SELECT MAX(price) FROM bid WHERE price > 1000;
SELECT bidder, MAX(price) FILTER (WHERE note <> 'a') FROM bid GROUP BY bidder;
SELECT g, MAX(v), MIN(s) FROM plain GROUP BY g;
-- Nexmark q4's shape: a MAX per auction over a join under a time range,
-- then an AVG per category.
SELECT q.category, AVG(q.final) FROM (
  SELECT MAX(b.price) AS final, a.category FROM auction a JOIN bid b ON a.id = b.auction
  WHERE b.at BETWEEN a.opens AND a.closes GROUP BY a.id, a.category) q
GROUP BY q.category;
-- Nexmark q9's shape: the top bid per auction.
SELECT id, bidder, price, at FROM (
  SELECT a.id, b.bidder, b.price, b.at,
         ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.at ASC) AS rownum
  FROM auction a JOIN bid b ON a.id = b.auction
  WHERE b.at BETWEEN a.opens AND a.closes) x
WHERE rownum <= 1;
SELECT auction, price, bidder, r FROM (
  SELECT auction, price, bidder, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS LAST, bidder) AS r
  FROM bid) t WHERE r <= 2;
SELECT auction, price, r FROM (
  SELECT auction, price, RANK() OVER (PARTITION BY auction ORDER BY price DESC) AS r FROM bid) t
WHERE r <= 2;
SELECT auction, price, r FROM (
  SELECT auction, price, DENSE_RANK() OVER (PARTITION BY auction ORDER BY price) AS r FROM bid) t
WHERE r <= 2;
SELECT g, v, r FROM (
  SELECT g, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) AS r FROM plain) t
WHERE r <= 1;
SELECT price, bidder FROM bid ORDER BY price DESC NULLS LAST, bidder LIMIT 3;
SELECT price FROM bid ORDER BY price LIMIT 2 OFFSET 1;
-- What keeps a stream insert-only: UNION ALL, DISTINCT, projections.
SELECT x, MAX(y) FROM (SELECT auction AS x, price AS y FROM bid UNION ALL SELECT id, closes FROM auction) u GROUP BY x;
SELECT MAX(bidder), MIN(bidder) FROM (SELECT DISTINCT bidder FROM bid) d;
-- What does not: a MAX over an aggregate's output (which retracts rows).
SELECT MAX(n), MIN(n) FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) c;
SELECT MAX(v) FROM (SELECT b.price AS v FROM bid b LEFT JOIN plain p ON p.g = b.auction) j;
