-- Q2: selection.
CREATE VIEW q2 AS SELECT auction, price FROM bid WHERE auction % 123 = 0;
