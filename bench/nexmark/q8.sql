-- Q8: people who opened an account and an auction in the same 10-second window.
CREATE VIEW q8 AS
SELECT p.id, p.name, p.starttime
FROM (
  SELECT id, name, w.window_start AS starttime, w.window_end AS endtime
  FROM person, tumble(date_time, INTERVAL '10 seconds') AS w
) p JOIN (
  SELECT seller, w.window_start AS starttime, w.window_end AS endtime
  FROM auction, tumble(date_time, INTERVAL '10 seconds') AS w
) a ON p.id = a.seller AND p.starttime = a.starttime AND p.endtime = a.endtime;
