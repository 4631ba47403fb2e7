-- The Nexmark tables, fed by the nexmark generator. bench/run fills in
-- EVENTS (events of all three kinds) and RATE (events per second of event
-- time).
CREATE TABLE person (
  id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR,
  state VARCHAR, date_time TIMESTAMP, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "person_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE}}}]');
CREATE TABLE auction (
  id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT,
  date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "auction_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE}}}]');
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "bid_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE}}}]');
