-- Q19: the 10 highest bids of each auction.
CREATE VIEW q19 AS
SELECT auction, bidder, price, channel, url, date_time, extra, rank_number
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bid
) x
WHERE rank_number <= 10;
