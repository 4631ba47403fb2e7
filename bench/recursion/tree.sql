CREATE TABLE tree (id INT NOT NULL, parent INT);
CREATE MATERIALIZED VIEW anc AS WITH RECURSIVE a(id, ancestor) AS (
  SELECT id, parent FROM tree WHERE parent IS NOT NULL
  UNION
  SELECT a.id, t.parent FROM a JOIN tree t ON t.id = a.ancestor WHERE t.parent IS NOT NULL
) SELECT * FROM a;
CREATE MATERIALIZED VIEW n AS SELECT count(*) AS pairs FROM anc;
