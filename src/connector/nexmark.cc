#include "connector/nexmark.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "types/row_codec.h"

namespace sluice::connector {
namespace {

using Json = nlohmann::json;

// The standard generator's constants (Nexmark's GeneratorConfig and its
// models), with its default configuration.
constexpr uint64_t kPersonProportion = 1, kAuctionProportion = 3, kTotalProportion = 50;
constexpr int64_t kFirstPersonId = 1000, kFirstAuctionId = 1000, kFirstCategoryId = 10;
constexpr int kNumCategories = 5;
constexpr int64_t kHotAuctionGroup = 100, kHotBidderGroup = 100, kHotSellerGroup = 100;
constexpr int64_t kPersonIdLead = 10, kAuctionIdLead = 10;
constexpr int64_t kNumActivePeople = 1000, kNumInFlightAuctions = 100;
constexpr int kHotAuctionRatio = 2, kHotSellersRatio = 4, kHotBiddersRatio = 4;
constexpr int kAvgPersonBytes = 200, kAvgAuctionBytes = 500, kAvgBidBytes = 100;
constexpr int kHotChannelsRatio = 2, kChannels = 10000;
// Event time of event 0: 2026-01-01 00:00:00, in microseconds.
constexpr int64_t kBaseTimeUs = 1767225600LL * 1000000;
constexpr uint64_t kChunk = 10000;  // events per batch a thread generates

const char* const kStates[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
const char* const kCities[] = {"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
                               "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
const char* const kFirstNames[] = {"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
                                   "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
const char* const kLastNames[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                  "Walton", "Smith",  "Jones",   "Noris"};
const char* const kHotChannels[] = {"Google", "Facebook", "Baidu", "Apple"};

// A small, fast generator (SplitMix64), seeded by the event number.
class Random {
 public:
  explicit Random(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound).
  int64_t Below(int64_t bound) {
    return static_cast<int64_t>(
        (static_cast<unsigned __int128>(Next()) * static_cast<uint64_t>(bound)) >> 64);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_;
};

int64_t LastBase0PersonId(uint64_t e) {
  const uint64_t epoch = e / kTotalProportion, offset = e % kTotalProportion;
  return static_cast<int64_t>(epoch * kPersonProportion +
                              (offset >= kPersonProportion ? kPersonProportion - 1 : offset));
}

int64_t LastBase0AuctionId(uint64_t e) {
  int64_t epoch = static_cast<int64_t>(e / kTotalProportion);
  int64_t offset = static_cast<int64_t>(e % kTotalProportion);
  if (offset < static_cast<int64_t>(kPersonProportion)) {
    --epoch;
    offset = kAuctionProportion - 1;
  } else if (offset >= static_cast<int64_t>(kPersonProportion + kAuctionProportion)) {
    offset = kAuctionProportion - 1;
  } else {
    offset -= kPersonProportion;
  }
  return epoch * static_cast<int64_t>(kAuctionProportion) + offset;
}

int64_t NextBase0PersonId(uint64_t e, Random& r) {
  const int64_t people = LastBase0PersonId(e) + 1;
  const int64_t active = std::min(people, kNumActivePeople);
  return people - active + r.Below(active + kPersonIdLead);
}

int64_t NextBase0AuctionId(uint64_t e, Random& r) {
  const int64_t last = LastBase0AuctionId(e);
  const int64_t lo = std::max<int64_t>(last - kNumInFlightAuctions, 0);
  return lo + r.Below(last - lo + 1 + kAuctionIdLead);
}

int64_t NextPrice(Random& r) {
  return static_cast<int64_t>(std::llround(std::pow(10.0, r.Unit() * 6.0) * 100.0));
}

// Up to `max_len` characters: letters, and now and then a space; trimmed.
void NextString(Random& r, int max_len, std::string* out) {
  const size_t start = out->size();
  for (int64_t len = 3 + r.Below(max_len - 3); len > 0; --len) {
    out->push_back(r.Below(13) == 0 ? ' ' : static_cast<char>('a' + r.Below(26)));
  }
  const size_t first = out->find_first_not_of(' ', start);
  if (first == std::string::npos) {
    out->resize(start);
    return;
  }
  out->erase(start, first - start);
  out->resize(out->find_last_not_of(' ') + 1);
}

// Letters, so that `current` plus them is `average` bytes on average.
void NextExtra(Random& r, int current, int average, std::string* out) {
  if (current > average) return;
  average -= current;
  const int delta = static_cast<int>(std::lround(average * 0.2));
  const int64_t size = average - delta + (delta == 0 ? 0 : r.Below(2 * delta));
  for (int64_t i = 0; i < size; ++i) out->push_back(static_cast<char>('a' + r.Below(26)));
}

struct TableShape {
  const char* name;
  int kind;  // 0 person, 1 auction, 2 bid
  std::vector<std::pair<const char*, TypeId>> columns;
};

const std::vector<TableShape>& Shapes() {
  static const std::vector<TableShape> kShapes = {
      {"person",
       0,
       {{"id", TypeId::kBigInt},
        {"name", TypeId::kVarchar},
        {"email_address", TypeId::kVarchar},
        {"credit_card", TypeId::kVarchar},
        {"city", TypeId::kVarchar},
        {"state", TypeId::kVarchar},
        {"date_time", TypeId::kTimestamp},
        {"extra", TypeId::kVarchar}}},
      {"auction",
       1,
       {{"id", TypeId::kBigInt},
        {"item_name", TypeId::kVarchar},
        {"description", TypeId::kVarchar},
        {"initial_bid", TypeId::kBigInt},
        {"reserve", TypeId::kBigInt},
        {"date_time", TypeId::kTimestamp},
        {"expires", TypeId::kTimestamp},
        {"seller", TypeId::kBigInt},
        {"category", TypeId::kBigInt},
        {"extra", TypeId::kVarchar}}},
      {"bid",
       2,
       {{"auction", TypeId::kBigInt},
        {"bidder", TypeId::kBigInt},
        {"price", TypeId::kBigInt},
        {"channel", TypeId::kVarchar},
        {"url", TypeId::kVarchar},
        {"date_time", TypeId::kTimestamp},
        {"extra", TypeId::kVarchar}}},
  };
  return kShapes;
}

// The connectors of one Nexmark stream (the tables whose configs name the
// same `stream`) in this process: each table's generator goes through every
// event number and makes only its own kind, so the auctions' generator (3
// events in 50) would run far ahead of the bids' (46 in 50) in event time,
// as far as its queue lets it. Generators that share a clock advance
// together instead, as Nexmark's single generator does: none starts a chunk
// more than kLeadChunks ahead of the slowest of the others.
//
// Thread safety: `mu_` guards the members; the generator threads of every
// member call in.
class StreamClock {
 public:
  static constexpr uint64_t kLeadChunks = 2;
  static constexpr uint64_t kDone = UINT64_MAX;

  // The clock of stream `name`, shared by every connector that names it.
  static std::shared_ptr<StreamClock> Named(const std::string& name) {
    static Mutex registry_mu;
    static std::map<std::string, std::weak_ptr<StreamClock>> registry;
    MutexLock l(&registry_mu);
    std::shared_ptr<StreamClock> clock = registry[name].lock();
    if (!clock) {
      clock = std::make_shared<StreamClock>();
      registry[name] = clock;
    }
    return clock;
  }

  // `member` takes part from chunk `first` on, until Leave().
  void Join(const void* member, uint64_t first) {
    MutexLock l(&mu_);
    next_[member] = first;
  }
  void Leave(const void* member) {
    MutexLock l(&mu_);
    next_.erase(member);
    cv_.SignalAll();
  }
  // `member` has handed over every chunk before `next` (kDone: all of them).
  void Advance(const void* member, uint64_t next) {
    MutexLock l(&mu_);
    next_[member] = next;
    cv_.SignalAll();
  }
  // Waits until `member` may make chunk `chunk`; false if `stop` said so
  // first (asked every 20 ms).
  bool WaitToMake(const void* member, uint64_t chunk, const std::function<bool()>& stop) {
    MutexLock l(&mu_);
    while (true) {
      uint64_t slowest = kDone;
      for (const auto& [m, next] : next_) {
        if (m != member) slowest = std::min(slowest, next);
      }
      if (slowest == kDone || chunk <= slowest + kLeadChunks) return true;
      l.Unlock();
      const bool stopped = stop();
      l.Lock();
      if (stopped) return false;
      cv_.WaitFor(&mu_, std::chrono::milliseconds(20));
    }
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::map<const void*, uint64_t> next_ GUARDED_BY(mu_);  // per member, its next chunk
};

class NexmarkInput final : public InputConnector {
 public:
  NexmarkInput(const ConnectorSpec& spec, const format::Relation& rel) : spec_(spec), rel_(rel) {
    stats_.paused = spec.paused;
  }
  ~NexmarkInput() override {
    Stop();
    if (clock_) clock_->Leave(this);
  }

  Status Init() {
    Json c = Json::parse(spec_.transport_config);
    events_ = c.value("events", uint64_t{100000000});
    const double rate = c.value("rate", 10000000.0);
    if (!(rate > 0)) return Fail("\"rate\" must be positive");
    delay_us_ = 1e6 / rate;
    seed_ = c.value("seed", uint64_t{0});
    threads_ = std::max(1, c.value("threads", spec_.workers));
    if (c.contains("stream")) {
      if (!c["stream"].is_string()) return Fail("\"stream\" must be a string");
      clock_ = StreamClock::Named(c["stream"].get<std::string>());
    }
    std::string table = c.value("table", rel_.name);
    for (const TableShape& s : Shapes()) {
      if (table == s.name) shape_ = &s;
    }
    if (shape_ == nullptr) {
      return Fail("\"table\" " + table + " is not a Nexmark table (person, auction or bid)");
    }
    // The table's columns: the Nexmark ones, in order.
    if (rel_.columns.size() != shape_->columns.size()) {
      return Fail("table " + rel_.name + " must have the columns of Nexmark's " + shape_->name +
                  " (" + std::to_string(shape_->columns.size()) + " columns)");
    }
    for (size_t i = 0; i < rel_.columns.size(); ++i) {
      if (rel_.columns[i] != shape_->columns[i].first ||
          rel_.schema[i].id() != shape_->columns[i].second) {
        return Fail("column " + std::to_string(i + 1) + " of " + rel_.name + " must be " +
                    shape_->columns[i].first + " " +
                    (shape_->columns[i].second == TypeId::kBigInt      ? "BIGINT"
                     : shape_->columns[i].second == TypeId::kTimestamp ? "TIMESTAMP"
                                                                       : "VARCHAR"));
      }
    }
    MutexLock l(&mu_);
    next_.assign(static_cast<size_t>(threads_), 0);
    for (int t = 0; t < threads_; ++t) next_[static_cast<size_t>(t)] = static_cast<uint64_t>(t);
    // From now on, not at Start(): the other tables' connectors are made
    // before any starts, so none runs ahead while the others start.
    if (clock_) clock_->Join(this, 0);
    return Status::OK();
  }

  Status Resume(std::string_view position) override {
    Json p = Json::parse(position, nullptr, false);
    MutexLock l(&mu_);
    if (p.is_discarded() || !p.contains("next_chunk") || !p["next_chunk"].is_array() ||
        p["next_chunk"].size() != next_.size()) {
      return Fail("cannot resume from " + std::string(position) + " with " +
                  std::to_string(threads_) + " threads");
    }
    for (size_t t = 0; t < next_.size(); ++t) next_[t] = p["next_chunk"][t].get<uint64_t>();
    if (clock_) clock_->Advance(this, *std::min_element(next_.begin(), next_.end()));
    return Status::OK();
  }

  Status Start(InputSink* sink) override {
    sink_ = sink;
    for (int t = 0; t < threads_; ++t) threads_list_.emplace_back([this, t] { Run(t); });
    return Status::OK();
  }

  void Stop() override {
    stop_ = true;
    for (std::thread& t : threads_list_) {
      if (t.joinable()) t.join();
    }
    threads_list_.clear();
  }

 private:
  Status Fail(const std::string& msg) {
    return Status::InvalidArgument("connector \"" + spec_.name + "\" (nexmark): " + msg);
  }

  void Run(int t) {
    const size_t ti = static_cast<size_t>(t);
    const uint64_t chunks = (events_ + kChunk - 1) / kChunk;
    std::string row;
    size_t last_records = 0, last_bytes = 0;  // of this thread's last chunk
    uint64_t first = 0;
    {
      MutexLock l(&mu_);
      first = next_[ti];
    }
    for (uint64_t chunk = first; chunk < chunks && !stop_;
         chunk += static_cast<uint64_t>(threads_)) {
      while (stats_.paused && !stop_ && !sink_->stopping()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (clock_ &&
          !clock_->WaitToMake(this, chunk, [this] { return stop_ || sink_->stopping(); })) {
        return;
      }
      format::ChangeBuffer changes;
      // As much as the last chunk took, and an eighth more: grown piece by
      // piece, the buffer copied its bytes again at every doubling.
      changes.Reserve(last_records + last_records / 8, last_bytes + last_bytes / 8);
      const uint64_t end = std::min(events_, (chunk + 1) * kChunk);
      uint64_t bytes = 0;
      for (uint64_t n = chunk * kChunk; n < end; ++n) {
        if (NexmarkEventKind(n) != shape_->kind) continue;
        row.clear();
        Make(n, &row);
        bytes += row.size();
        changes.Add(format::ChangeKind::kInsert, "", row);
      }
      MutexLock l(&mu_);
      next_[ti] = chunk + static_cast<uint64_t>(threads_);
      Json pos = {{"next_chunk", next_}};
      const uint64_t records = changes.size();
      last_records = changes.size();
      last_bytes = changes.bytes();
      if (!sink_->Enqueue(std::move(changes), pos.dump())) return;
      // Handed over: the others may go on.
      if (clock_) clock_->Advance(this, *std::min_element(next_.begin(), next_.end()));
      stats_.records += records;
      stats_.bytes += bytes;
    }
    if (++finished_ == threads_) {
      stats_.end_of_input = true;
      if (clock_) clock_->Advance(this, StreamClock::kDone);
    }
  }

  // The row of event `n` (of this table's kind).
  void Make(uint64_t n, std::string* out) {
    NexmarkRow(n, seed_, 1e6 / delay_us_, rel_.schema, out);
  }

  const ConnectorSpec spec_;
  const format::Relation rel_;
  const TableShape* shape_ = nullptr;
  uint64_t events_ = 0, seed_ = 0;
  double delay_us_ = 0.1;
  int threads_ = 1;
  InputSink* sink_ = nullptr;
  Mutex mu_;
  std::vector<uint64_t> next_ GUARDED_BY(mu_);  // per thread, its next chunk
  std::vector<std::thread> threads_list_;
  std::shared_ptr<StreamClock> clock_;  // null unless the config names a `stream`
  std::atomic<bool> stop_{false};
  std::atomic<int> finished_{0};
};

}  // namespace

int NexmarkEventKind(uint64_t n) {
  const uint64_t rem = n % kTotalProportion;
  return rem < kPersonProportion ? 0 : rem < kPersonProportion + kAuctionProportion ? 1 : 2;
}

void NexmarkRow(uint64_t n, uint64_t seed, double rate, const Schema& schema, std::string* out) {
  auto Int = [&](size_t col, int64_t v, std::string* o) { AppendIntField(schema[col], v, o); };
  auto Str = [&](size_t col, std::string_view v, std::string* o) {
    AppendStringField(schema[col], v, o);
  };
  const double delay_us = 1e6 / rate;
  auto Timestamp = [&](uint64_t e) {
    return kBaseTimeUs + static_cast<int64_t>(static_cast<double>(e) * delay_us);
  };
  Random r(Random(n ^ Random(seed).Next()).Next());
  const int64_t ts = Timestamp(n);
  std::string a, b, c;
  switch (NexmarkEventKind(n)) {
    case 0: {  // person
      a = std::string(kFirstNames[r.Below(11)]) + " " + kLastNames[r.Below(9)];
      NextString(r, 7, &b);
      b += "@";
      NextString(r, 5, &b);
      b += ".com";
      char card[24];
      std::snprintf(card, sizeof card, "%04d %04d %04d %04d", static_cast<int>(r.Below(10000)),
                    static_cast<int>(r.Below(10000)), static_cast<int>(r.Below(10000)),
                    static_cast<int>(r.Below(10000)));
      const char* city = kCities[r.Below(10)];
      const char* state = kStates[r.Below(6)];
      NextExtra(r,
                static_cast<int>(8 + a.size() + b.size() + std::strlen(card) + std::strlen(city) +
                                 std::strlen(state)),
                kAvgPersonBytes, &c);
      Int(0, LastBase0PersonId(n) + kFirstPersonId, out);
      Str(1, a, out);
      Str(2, b, out);
      Str(3, card, out);
      Str(4, city, out);
      Str(5, state, out);
      Int(6, ts, out);
      Str(7, c, out);
      return;
    }
    case 1: {  // auction
      const int64_t id = LastBase0AuctionId(n) + kFirstAuctionId;
      int64_t seller = r.Below(kHotSellersRatio) > 0
                           ? (LastBase0PersonId(n) / kHotSellerGroup) * kHotSellerGroup
                           : NextBase0PersonId(n, r);
      seller += kFirstPersonId;
      const int64_t category = kFirstCategoryId + r.Below(kNumCategories);
      const int64_t initial = NextPrice(r);
      // Auctions last, on average, until numInFlightAuctions more have
      // started.
      const uint64_t ahead = (kNumInFlightAuctions * kTotalProportion) / kAuctionProportion;
      const int64_t horizon_ms = (Timestamp(n + ahead) - ts) / 1000;
      const int64_t expires = ts + 1000 * (1 + r.Below(std::max<int64_t>(horizon_ms * 2, 1)));
      NextString(r, 20, &a);
      NextString(r, 100, &b);
      const int64_t reserve = initial + NextPrice(r);
      NextExtra(r, static_cast<int>(8 + a.size() + b.size() + 40), kAvgAuctionBytes, &c);
      Int(0, id, out);
      Str(1, a, out);
      Str(2, b, out);
      Int(3, initial, out);
      Int(4, reserve, out);
      Int(5, ts, out);
      Int(6, expires, out);
      Int(7, seller, out);
      Int(8, category, out);
      Str(9, c, out);
      return;
    }
    default: {  // bid
      int64_t auction = r.Below(kHotAuctionRatio) > 0
                            ? (LastBase0AuctionId(n) / kHotAuctionGroup) * kHotAuctionGroup
                            : NextBase0AuctionId(n, r);
      auction += kFirstAuctionId;
      int64_t bidder = r.Below(kHotBiddersRatio) > 0
                           ? (LastBase0PersonId(n) / kHotBidderGroup) * kHotBidderGroup + 1
                           : NextBase0PersonId(n, r);
      bidder += kFirstPersonId;
      const int64_t price = NextPrice(r);
      if (r.Below(kHotChannelsRatio) > 0) {
        const int64_t h = r.Below(4);
        a = kHotChannels[h];
        b = "https://www.nexmark.com/" + a + "/item.htm?query=1";
      } else {
        const int64_t ch = r.Below(kChannels);
        a = "channel-" + std::to_string(ch);
        b = "https://www.nexmark.com/";
        NextString(r, 5, &b);
        b += "/";
        NextString(r, 5, &b);
        b += "/";
        NextString(r, 5, &b);
        b += "/item.htm?query=1&channel_id=" + std::to_string(ch);
      }
      NextExtra(r, 32, kAvgBidBytes, &c);
      Int(0, auction, out);
      Int(1, bidder, out);
      Int(2, price, out);
      Str(3, a, out);
      Str(4, b, out);
      Int(5, ts, out);
      Str(6, c, out);
      return;
    }
  }
}

Result<std::unique_ptr<InputConnector>> MakeNexmarkInput(const ConnectorSpec& spec,
                                                         const format::Relation& rel) {
  auto c = std::make_unique<NexmarkInput>(spec, rel);
  SLUICE_RETURN_IF_ERROR(c->Init());
  return std::unique_ptr<InputConnector>(std::move(c));
}

}  // namespace sluice::connector
