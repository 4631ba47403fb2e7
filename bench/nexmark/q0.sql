-- Q0: pass-through.
CREATE VIEW q0 AS SELECT auction, bidder, price, date_time, extra FROM bid;
