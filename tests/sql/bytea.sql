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

-- bytea's functions: trims, substrings, overlay, LIKE, encode/decode, the
-- SHA-2 digests, bits and bytes; unistr.
CREATE TABLE bf (id INT, b BYTEA, t TEXT);
INSERT INTO bf VALUES (1, '\x1234567890', 'abc'), (2, '\x00', '\\u0041\\+01F600x'), (3, '\xdeadbeef0012', ''),
  (4, NULL, NULL), (5, 'hello world', 'd\\0065f');
SELECT id, btrim(b, '\x1290'::bytea), ltrim(b, '\x12'::bytea), rtrim(b, '\x9012'::bytea), substring(b from 2 for 3), substr(b, 3), substring(b, -1, 3), overlay(b placing '\xff'::bytea from 2), overlay(b placing '\xaabb'::bytea from 2 for 1) FROM bf;
SELECT id, encode(b, 'hex'), encode(b, 'base64'), encode(b, 'escape'), decode(encode(b, 'base64'), 'base64') = b, decode(encode(b, 'escape'), 'escape') = b, sha224(b), sha256(b), sha384(b), sha512(b) FROM bf;
SELECT id, get_byte(b, 0), set_byte(b, 0, 65), get_bit(b, 3), set_bit(b, 0, 1), bit_count(b), b LIKE '\x12%'::bytea, b NOT LIKE 'h_llo%'::bytea, b LIKE 'h#_%' ESCAPE '#' FROM bf WHERE id <> 2 OR b IS NOT NULL;
UPDATE bf SET b = b || '\x01' WHERE id IN (1, 3);
DELETE FROM bf WHERE id = 5;
SELECT id, encode(b, 'hex'), get_bit(b, 7), sha256(b) FROM bf;
SELECT unistr('d\0061t\+000061'), unistr('\u00e9\U0001F600'), encode(sha256('abc'), 'hex'), decode('MTIzAAE=', 'base64'), decode('12 34', 'hex');
-- sluice: error index 80 out of valid range, 0..39
SELECT get_bit('\x1234567890'::bytea, 80);
-- sluice: error unrecognized encoding: "base32"
SELECT encode('\x00'::bytea, 'base32');
-- sluice: error invalid Unicode escape
SELECT unistr('wrong: \zz');

-- POSITION(sub IN bytes): from 1, 0 where it does not occur, 1 for empty.
SELECT POSITION('\x11'::bytea IN ''::bytea), POSITION('\x33'::bytea IN '\x1122'::bytea), POSITION(''::bytea IN '\x1122'::bytea);
CREATE TABLE hay (k INT, b BYTEA, n BYTEA);
INSERT INTO hay VALUES (1, '\x1234567890', '\x5678'), (2, '\x1122', '\x22'), (3, '\x', '\x'), (4, NULL, '\x12');
SELECT k, POSITION(n IN b) FROM hay;
UPDATE hay SET n = '\x90' WHERE k = 1;
DELETE FROM hay WHERE k = 2;
INSERT INTO hay VALUES (5, '\x0a0b0a0b', '\x0b0a');
SELECT k, POSITION(n IN b), position(b, n) FROM hay;

-- A cast of bytea to text writes the form bytea_output has when the query
-- is bound: escape keeps printable bytes as they are, so the text splits.
SET bytea_output = 'escape';
CREATE TABLE bo (k INT, b BYTEA);
INSERT INTO bo VALUES (1, 'ab,c'), (2, '\x00ff2c41'), (3, NULL);
SELECT k, b::text, regexp_split_to_array(b::text, ','), length(b::text) FROM bo;
UPDATE bo SET b = 'x,y,z' WHERE k = 3;
DELETE FROM bo WHERE k = 1;
SELECT k, b::text, regexp_split_to_array(b::text, ',') FROM bo;
RESET bytea_output;
SELECT k, b::text FROM bo;

-- length and octet_length of bytea count bytes; bit_length counts bits.
CREATE TABLE blen (k INT, b BYTEA);
INSERT INTO blen VALUES (1, '\x0102ff'), (2, ''), (3, NULL), (4, 'héllo');
SELECT k, length(b), octet_length(b), bit_length(b) FROM blen;
UPDATE blen SET b = b || '\x00' WHERE k = 2;
DELETE FROM blen WHERE k = 1;
SELECT k, length(b), octet_length(b), bit_length(b) FROM blen WHERE length(b) > 0;
