-- Q7: the highest bid of each 10-second window.
CREATE VIEW q7 AS
SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
FROM bid b JOIN (
  SELECT MAX(price) AS maxprice, w.window_end AS endtime
  FROM bid, tumble(date_time, INTERVAL '10 seconds') AS w
  GROUP BY w.window_end
) m ON b.price = m.maxprice
WHERE b.date_time >= m.endtime - INTERVAL '10 seconds' AND b.date_time < m.endtime;
