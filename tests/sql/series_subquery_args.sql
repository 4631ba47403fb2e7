-- A set-returning function whose arguments hold a subquery: a LATERAL
-- call, as one that reads columns.
CREATE TABLE sub_args (id INT, a INT[]);
INSERT INTO sub_args VALUES (1, ARRAY[1, 2]), (2, ARRAY[3]);
SELECT unnest(array(SELECT id FROM sub_args ORDER BY id)) AS u;
SELECT unnest(array(SELECT '11 22 33'::int2vector FROM generate_series(1, 2)));
SELECT * FROM unnest(array(SELECT id * 10 FROM sub_args)) AS x(v);
SELECT generate_series(1, (SELECT count(*)::int FROM sub_args)) AS g;
SELECT id, unnest(a || (SELECT max(id) FROM sub_args)) FROM sub_args;
INSERT INTO sub_args VALUES (3, ARRAY[]::INT[]);
DELETE FROM sub_args WHERE id = 1;
