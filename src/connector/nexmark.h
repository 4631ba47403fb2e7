// The Nexmark event generator as an input transport (`nexmark`), for
// benchmarks: the person, auction and bid streams of the Nexmark benchmark
// (persons, auctions and bids in the proportion 1:3:46), with the standard
// generator's id spaces, hot sellers, bidders and auctions, auction
// lengths, prices and strings.
//
//   CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT,
//     channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR)
//   WITH (connectors = '[{"transport": {"name": "nexmark",
//     "config": {"events": 10000000, "rate": 10000000}}}]');
//
// Settings: `events` (how many events of all three kinds, default 10^8),
// `rate` (events per second of event time: event n happens at
// 2026-01-01 00:00:00 + n / rate seconds; default 10^7), `table` (person,
// auction or bid; default the table's name), `threads` (generator threads,
// default the pipeline's workers), `seed`, `stream` (a name: the tables
// whose connectors name the same stream advance together in event time, no
// table's generator more than 2 chunks of 10,000 events ahead of the
// slowest of the others; a paused or full one holds the others back).
// Events are generated as fast as the pipeline takes them.
//
// Without a `stream`, each table's generator runs as far ahead as its queue
// lets it: the auctions' (3 events in 50) some 16 times as far in event
// time as the bids', so that a join of the two holds every auction whose
// bids have not come yet. Nexmark's own generator makes one stream of all
// three kinds, in order of time.
//
// Every event is a function of its number (its random draws come from a
// generator seeded by it), so the three tables' connectors agree without
// talking to each other, threads may split the numbers between them, and
// a checkpoint records where each thread is. The tables' columns must be
// the ones above (person: id, name, email_address, credit_card, city,
// state, date_time, extra; auction: id, item_name, description,
// initial_bid, reserve, date_time, expires, seller, category, extra).
#pragma once

#include <memory>

#include "connector/connector.h"

namespace sluice::connector {

// Checks the settings and the table's columns.
Result<std::unique_ptr<InputConnector>> MakeNexmarkInput(const ConnectorSpec& spec,
                                                         const format::Relation& rel);

// Event number `n`'s kind: 0 person, 1 auction, 2 bid.
int NexmarkEventKind(uint64_t n);

// Appends event `n`'s row, encoded with `schema` (the column types of its
// kind's table), for the generator with `seed` and `rate`.
void NexmarkRow(uint64_t n, uint64_t seed, double rate, const Schema& schema, std::string* out);

}  // namespace sluice::connector
