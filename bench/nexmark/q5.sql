-- Q5: hot items: the auctions with the most bids in each 10-second window
-- that slides every 2 seconds.
CREATE VIEW q5 AS
WITH counts AS (
  SELECT b.auction, w.window_start AS starttime, COUNT(*) AS num
  FROM bid b, hop(b.date_time, INTERVAL '2 seconds', INTERVAL '10 seconds') AS w
  GROUP BY b.auction, w.window_start
), maxes AS (
  SELECT starttime, MAX(num) AS maxn FROM counts GROUP BY starttime
)
SELECT c.auction, c.num
FROM counts c JOIN maxes m ON c.starttime = m.starttime
WHERE c.num >= m.maxn;
