-- Q6: average selling price of each seller's last 10 closed auctions.
CREATE VIEW q6 AS
WITH winning AS (
  SELECT a.id, a.seller, MAX(b.price) AS final, a.date_time
  FROM auction a JOIN bid b ON a.id = b.auction
  WHERE b.date_time BETWEEN a.date_time AND a.expires
  GROUP BY a.id, a.seller, a.date_time
), ranked AS (
  SELECT seller, final,
         ROW_NUMBER() OVER (PARTITION BY seller ORDER BY date_time DESC) AS r
  FROM winning
)
SELECT seller, AVG(final) AS avg_final FROM ranked WHERE r <= 10 GROUP BY seller;
