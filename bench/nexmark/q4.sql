-- Q4: average winning price per category (a winning bid: the highest bid
-- made while its auction was open).
CREATE VIEW q4 AS
SELECT q.category, AVG(q.final) AS avg_final
FROM (
  SELECT MAX(b.price) AS final, a.category
  FROM auction a JOIN bid b ON a.id = b.auction
  WHERE b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.category
) q
GROUP BY q.category;
