-- PostgreSQL's numbers: AVG of integers and decimals is numeric at
-- PostgreSQL's scale for the quotient (see docs/sql.md).
CREATE TABLE n (k INT, c DECIMAL(10,2), i INT, b BIGINT, s SMALLINT, d DOUBLE PRECISION);
INSERT INTO n VALUES (1, 1000.25, 5, 10, 5, 0.5), (1, 2000.50, 6, 20, 6, 1.5), (2, 3333.33, 3, 30, 3, 2.5), (2, 10.01, 4, 40, 4, 1e-3);
INSERT INTO n VALUES (3, NULL, NULL, NULL, NULL, NULL), (3, -5.55, -7, -70, -7, -7.5), (1, 6000.00, 9, 90, 9, 2);
DELETE FROM n WHERE c = 6000.00;
SELECT avg(c) FROM n;
SELECT k, avg(c), avg(i), avg(b), avg(s), avg(d) FROM n GROUP BY k;
SELECT k, avg(i) OVER (PARTITION BY k), avg(c) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM n;
SELECT 1e-5 * 3, 1.5e3, 2.50e1, 1e10, 12.345e-1;
