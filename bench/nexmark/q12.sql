-- Q12: bids per bidder in each 10-second window. (Nexmark's Q12 windows by
-- processing time, which no two runs share; this reads the event time.)
CREATE VIEW q12 AS
SELECT b.bidder, COUNT(*) AS bid_count, w.window_start, w.window_end
FROM bid b, tumble(b.date_time, INTERVAL '10 seconds') AS w
GROUP BY b.bidder, w.window_start, w.window_end;
