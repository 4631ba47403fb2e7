-- A small shop. Customers come from a JSON file, orders from a CSV file (and
-- both over HTTP, POST /ingress/{table}); the views keep revenue per country,
-- the largest orders and hourly totals up to date as the tables change.

CREATE TABLE customers (
  id BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR NOT NULL,
  country VARCHAR
) WITH (materialized = true, connectors = '[{
  "name": "customers_file",
  "transport": {"name": "file_input", "config": {"path": "customers.json"}},
  "format": {"name": "json", "config": {"update_format": "insert_delete"}}
}]');

CREATE TABLE orders (
  id BIGINT NOT NULL PRIMARY KEY,
  customer BIGINT NOT NULL,
  amount DECIMAL(10, 2) NOT NULL,
  placed TIMESTAMP NOT NULL
) WITH (materialized = true, connectors = '[{
  "name": "orders_file",
  "transport": {"name": "file_input", "config": {"path": "orders.csv"}},
  "format": {"name": "csv"}
}]');

-- Every change to this view is appended to out/revenue.json.
CREATE MATERIALIZED VIEW revenue_by_country WITH (connectors = '[{
  "name": "revenue_file",
  "transport": {"name": "file_output", "config": {"path": "out/revenue.json"}},
  "format": {"name": "json"}
}]') AS
SELECT c.country, COUNT(*) AS orders, SUM(o.amount) AS revenue
FROM orders o JOIN customers c ON o.customer = c.id
GROUP BY c.country;

CREATE MATERIALIZED VIEW top_orders AS
SELECT o.id, c.name, o.amount
FROM orders o JOIN customers c ON o.customer = c.id
ORDER BY o.amount DESC
LIMIT 3;

CREATE VIEW hourly AS
SELECT w.window_start, COUNT(*) AS orders, SUM(o.amount) AS revenue
FROM orders o, tumble(o.placed, INTERVAL '1 hour') AS w
GROUP BY w.window_start;
