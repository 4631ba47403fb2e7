-- The Nexmark tables as in tables_inorder.sql (one generator thread per
-- table: rows in order of date_time; the tables advance together in event
-- time), with a LATENESS on each date_time, so
-- that aggregates and joins on event-time windows forget closed windows
-- (bench/run nexmark-lateness).
CREATE TABLE person (
  id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR,
  state VARCHAR, date_time TIMESTAMP LATENESS INTERVAL 4 SECONDS, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "person_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE, "threads": 1, "stream": "nexmark"}}}]');
CREATE TABLE auction (
  id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT,
  date_time TIMESTAMP LATENESS INTERVAL 4 SECONDS, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "auction_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE, "threads": 1, "stream": "nexmark"}}}]');
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP LATENESS INTERVAL 4 SECONDS, extra VARCHAR
) WITH (append_only = true, connectors = '[{"name": "bid_gen", "max_batch_size": 100000, "max_queued_records": 300000,
  "transport": {"name": "nexmark", "config": {"events": EVENTS, "rate": RATE, "threads": 1, "stream": "nexmark"}}}]');
