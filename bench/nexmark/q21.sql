-- Q21: a channel id from the channel name or the url. (Nexmark's Q21 uses
-- REGEXP_EXTRACT on the url; this finds 'channel_id=' with strpos.)
CREATE VIEW q21 AS
SELECT auction, bidder, price, channel,
       CASE
         WHEN lower(channel) = 'apple' THEN '0'
         WHEN lower(channel) = 'google' THEN '1'
         WHEN lower(channel) = 'facebook' THEN '2'
         WHEN lower(channel) = 'baidu' THEN '3'
         ELSE split_part(substr(url, strpos(url, 'channel_id=') + 11), '&', 1)
       END AS channel_id
FROM bid
WHERE strpos(url, 'channel_id=') > 0
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu');
