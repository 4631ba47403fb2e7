-- Q13: bids joined with a bounded side input (10,000 rows, from a file that
-- bench/run writes: key, value).
CREATE TABLE side_input (key BIGINT, value VARCHAR) WITH (connectors = '[{
  "transport": {"name": "file_input", "config": {"path": "SIDE_INPUT"}},
  "format": {"name": "csv"}}]');
CREATE VIEW q13 AS
SELECT b.auction, b.bidder, b.price, b.date_time, s.value
FROM bid b JOIN side_input s ON b.auction % 10000 = s.key;
