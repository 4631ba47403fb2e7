-- bytea: read in hex and escape forms, printed in hex, as PostgreSQL does;
-- float4send and float8send give a float's bits.
CREATE TABLE b (id INT, x BYTEA, f REAL, d FLOAT8);
INSERT INTO b VALUES (1, '\x0102ff', 1.5, 2.25), (2, 'abc', -0.1, 1.5e10), (3, 'a\\b\001', 5e-20, -0.0),
  (4, '\x DE AD be ef', 1024.0625, 0.000123);
SELECT id, x, x::text, md5(x) FROM b;
SELECT id, float4send(f), float8send(d) FROM b;
SELECT float4send('67e14'::float4), '\xabcd'::bytea, 'a\134b'::bytea;
-- sluice: error invalid hexadecimal digit
SELECT '\xzz'::bytea;
-- sluice: error invalid input syntax for type bytea
SELECT 'a\9b'::bytea;
UPDATE b SET x = '\x00' WHERE id = 2;
DELETE FROM b WHERE id = 1;
