#include "pipeline/input_queues.h"

#include <algorithm>
#include <thread>

#include "base/bytes.h"
#include "base/hash.h"
#include "dataflow/operators/exchange.h"
#include "dataflow/operators/upsert.h"
#include "pipeline/waterlines.h"
#include "zset/batch_builder.h"

namespace sluice::pipeline {
namespace {

// queues.bin: "SLQ3", then per queued segment
//   u32 length + table, u32 length + source connector ("" for HTTP),
//   u64 segment id, u64 changes of it already taken, all its changes
//   (EncodeChanges)
// and last a u64 checksum (Checksum64) of every byte before it. A segment
// keeps its taken changes so that the offsets the input journal records
// for the steps after the checkpoint still point at the same changes.
// ("SLQ2", written before, has no count of taken changes and only the
// changes not yet taken.)
constexpr char kQueuesMagic[] = "SLQ3";
constexpr char kQueuesMagicV2[] = "SLQ2";

std::map<std::string, bool> KeyedByTable(const std::vector<InputQueues::Table>& tables) {
  std::map<std::string, bool> out;
  for (const InputQueues::Table& t : tables) out[t.name] = t.keyed;
  return out;
}

}  // namespace

InputQueues::InputQueues(const std::vector<Table>& tables, std::vector<Source> sources,
                         std::function<void()> wake)
    : keyed_(KeyedByTable(tables)), sources_(std::move(sources)), wake_(std::move(wake)) {
  MutexLock l(&mu_);
  for (const Table& t : tables) queues_[t.name];
  source_state_.resize(sources_.size());
}

void InputQueues::SetGate(Gate gate, const Status& why) {
  MutexLock l(&mu_);
  if (gate_ == Gate::kClosed) return;  // closed stays closed
  gate_ = gate;
  if (gate == Gate::kClosed)
    closed_why_ = why.ok() ? Status::Aborted("the pipeline is stopping") : why;
  arrived_.SignalAll();
  space_.SignalAll();
  completed_cv_.SignalAll();
}

void InputQueues::SetSourcePaused(size_t source, bool paused) {
  MutexLock l(&mu_);
  source_state_.at(source).paused = paused;
  space_.SignalAll();
}

bool InputQueues::source_paused(size_t source) const {
  MutexLock l(&mu_);
  return source_state_.at(source).paused;
}

void InputQueues::SetJournal(Journal* journal) {
  MutexLock l(&mu_);
  journal_ = journal;
}

int InputQueues::SourceIndex(const std::string& name) const {
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (!name.empty() && sources_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Status InputQueues::QueueLocked(const std::string& table, int source,
                                std::shared_ptr<const format::ChangeBuffer> changes, uint64_t id,
                                size_t taken) {
  auto q = queues_.find(table);
  if (q == queues_.end()) return Status::NotFound("table \"" + table + "\" does not exist");
  if (id == 0) {
    id = next_segment_++;
    if (journal_ != nullptr) {
      const bool connector = source >= 0;
      const size_t s = static_cast<size_t>(source);
      SLUICE_RETURN_IF_ERROR(journal_->AppendSegment(id, table, connector ? sources_[s].name : "",
                                                     connector ? source_state_[s].position : "",
                                                     *changes));
    }
  } else {
    next_segment_ = std::max(next_segment_, id + 1);
  }
  const uint64_t n = changes->size() - taken;
  if (buffered_ == 0) first_buffered_ = Clock::now();
  buffered_ += n;
  if (source >= 0) source_state_[static_cast<size_t>(source)].queued += n;
  q->second.push_back({id, source, std::move(changes), taken});
  arrived_.SignalAll();
  return Status::OK();
}

Result<uint64_t> InputQueues::Ingest(const std::string& table,
                                     std::shared_ptr<const format::ChangeBuffer> changes,
                                     bool force, uint64_t bytes) {
  uint64_t token = 0;
  {
    MutexLock l(&mu_);
    if (queues_.count(table) == 0)
      return Status::NotFound("table \"" + table + "\" does not exist");
    while (!force && gate_ == Gate::kHeld) space_.Wait(&mu_);
    if (gate_ == Gate::kClosed) return closed_why_;
    Counters& c = ingress_[table];
    ++c.requests;
    c.records += changes->size();
    c.bytes += bytes;
    if (next_token_ > reserved_token_) {
      SLUICE_RETURN_IF_ERROR(reserve_tokens_(next_token_ + kTokenBlock - 1));
      reserved_token_ = next_token_ + kTokenBlock - 1;
    }
    if (!changes->empty()) SLUICE_RETURN_IF_ERROR(QueueLocked(table, -1, std::move(changes), 0));
    token = next_token_++;
  }
  wake_();
  return token;
}

void InputQueues::CountParseErrors(const std::string& table, uint64_t errors) {
  MutexLock l(&mu_);
  if (queues_.count(table) == 0) return;
  ingress_[table].parse_errors += errors;
}

Status InputQueues::Enqueue(size_t source, std::shared_ptr<const format::ChangeBuffer> changes,
                            std::string position) {
  const uint64_t n = changes->size();
  {
    MutexLock l(&mu_);
    SourceState& st = source_state_.at(source);
    const uint64_t limit = sources_[source].max_queued_records;
    while (gate_ != Gate::kClosed &&
           (gate_ == Gate::kHeld || st.paused || (st.queued > 0 && st.queued + n > limit))) {
      space_.Wait(&mu_);
    }
    if (gate_ == Gate::kClosed) return closed_why_;
    st.position = std::move(position);
    if (n == 0) return Status::OK();
    SLUICE_RETURN_IF_ERROR(
        QueueLocked(sources_[source].table, static_cast<int>(source), std::move(changes), 0));
  }
  wake_();
  return Status::OK();
}

uint64_t InputQueues::buffered() const {
  MutexLock l(&mu_);
  return buffered_;
}

InputQueues::Clock::time_point InputQueues::DueAt(uint64_t min_records,
                                                  std::chrono::microseconds max_delay) const {
  MutexLock l(&mu_);
  if (buffered_ == 0) return Clock::time_point::max();
  if (buffered_ >= min_records) return Clock::time_point::min();
  return first_buffered_ + max_delay;
}

InputQueues::Readiness InputQueues::WaitDue(uint64_t min_records,
                                            std::chrono::microseconds max_delay,
                                            std::chrono::milliseconds wait) {
  const Clock::time_point deadline = Clock::now() + wait;
  MutexLock l(&mu_);
  for (;;) {
    if (gate_ == Gate::kClosed) return {buffered_, false};
    const Clock::time_point now = Clock::now();
    if (buffered_ > 0) {
      const Clock::time_point due = first_buffered_ + max_delay;
      if (buffered_ >= min_records || now >= due) return {buffered_, true};
      if (now >= deadline) return {buffered_, false};
      arrived_.WaitUntil(&mu_, std::min(due, deadline));
      continue;
    }
    if (now >= deadline) return {0, false};
    arrived_.WaitUntil(&mu_, deadline);
  }
}

InputQueues::StepInput InputQueues::Take(uint64_t* last_token) {
  StepInput taken;
  {
    MutexLock l(&mu_);
    std::vector<uint64_t> budget;
    for (const Source& s : sources_) budget.push_back(s.max_batch_size);
    uint64_t count = 0;
    for (auto& [name, q] : queues_) {
      for (auto it = q.begin(); it != q.end();) {
        Segment& seg = *it;
        uint64_t n = seg.changes->size() - seg.next;
        if (seg.source >= 0) {
          const size_t src = static_cast<size_t>(seg.source);
          n = std::min(n, budget[src]);
          budget[src] -= n;
          source_state_[src].queued -= n;
        }
        if (n > 0) taken[name].push_back({seg.id, seg.changes, seg.next, seg.next + n});
        seg.next += n;
        count += n;
        it = seg.next == seg.changes->size() ? q.erase(it) : it + 1;
      }
    }
    processed_ += count;
    buffered_ -= count;
    *last_token = next_token_ - 1;
    replay_gap_from_ = 0;
    space_.SignalAll();
  }
  return taken;
}

Result<InputQueues::StepInput> InputQueues::TakeRecorded(
    uint64_t step, const std::vector<JournalRecord::Range>& ranges, uint64_t* last_token) {
  StepInput taken;
  MutexLock l(&mu_);
  for (const JournalRecord::Range& range : ranges) {
    bool found = false;
    for (auto& [name, q] : queues_) {
      for (auto it = q.begin(); it != q.end() && !found; ++it) {
        if (it->id != range.segment) continue;
        found = true;
        if (it->next != range.from || range.to > it->changes->size() || range.to < range.from) {
          return Status::Corruption("the input journal's step " + std::to_string(step) +
                                    " takes changes of segment " + std::to_string(range.segment) +
                                    " out of order");
        }
        const uint64_t n = range.to - range.from;
        taken[name].push_back({it->id, it->changes, range.from, range.to});
        it->next = range.to;
        buffered_ -= n;
        processed_ += n;
        if (it->source >= 0) source_state_[static_cast<size_t>(it->source)].queued -= n;
        if (it->next == it->changes->size()) q.erase(it);
        break;
      }
      if (found) break;
    }
    if (!found) {
      return Status::Corruption("the input journal's step " + std::to_string(step) +
                                " takes segment " + std::to_string(range.segment) +
                                ", which is not queued");
    }
  }
  // Tokens given before the restart whose changes a replayed step may not
  // have taken yet complete with the first step after the replay.
  *last_token =
      replay_gap_from_ > 0 ? std::min(next_token_, replay_gap_from_) - 1 : next_token_ - 1;
  space_.SignalAll();
  return taken;
}

Result<std::map<std::string, std::vector<MemBatchPtr>>> InputQueues::Split(
    const StepInput& input, int workers, uint64_t hosts, uint64_t host, uint64_t* upsert_seq,
    Waterlines* waterlines) const {
  std::map<std::string, std::vector<MemBatchPtr>> out;
  for (const auto& [table, ranges] : input) {
    const bool keyed = keyed_.at(table);
    std::vector<BatchBuilder> parts(static_cast<size_t>(workers));
    // Each worker's part gets about its share of the rows and their bytes,
    // reserved with an eighth to spare: grown piece by piece, the builders
    // copied their bytes again at every doubling, into fresh pages.
    size_t all = 0, bytes = 0;
    for (const Range& r : ranges) {
      all += r.to - r.from;
      if (!r.changes->empty()) bytes += r.changes->bytes() / r.changes->size() * (r.to - r.from);
    }
    if (keyed) bytes += all * 16;  // each command's header
    const size_t w = static_cast<size_t>(workers);
    for (BatchBuilder& b : parts)
      b.Reserve(all / w + all / (8 * w) + 16, bytes / w + bytes / (8 * w) + 256);
    size_t records = 0;
    for (const Range& r : ranges) {
      const format::ChangeBuffer& changes = *r.changes;
      records += r.to - r.from;
      for (size_t i = r.from; i < r.to; ++i) {
        const format::ChangeKind k = changes.kind(i);
        const std::string_view key = keyed ? changes.key(i) : changes.payload(i);
        if (waterlines != nullptr && !keyed && !waterlines->Admit(table, key)) continue;
        BatchBuilder& b = parts[workers == 1 ? 0 : static_cast<size_t>(WorkerForKey(key, workers))];
        if (!keyed) {
          b.Push(key, k == format::ChangeKind::kDelete ? -1 : 1);
          continue;
        }
        const UpsertOpKind op = k == format::ChangeKind::kInsert   ? UpsertOpKind::kInsert
                                : k == format::ChangeKind::kDelete ? UpsertOpKind::kDelete
                                                                   : UpsertOpKind::kUpdate;
        b.Push(key, EncodeUpsertCommand((*upsert_seq)++ * hosts + host, op, changes.payload(i)), 1);
      }
    }
    // Large batches are sorted on several threads, which would otherwise
    // wait for the step.
    std::vector<Result<MemBatchPtr>> built(parts.size(), MemBatch::Empty());
    auto finish = [&](size_t w) { built[w] = parts[w].Finish(); };
    if (workers > 1 && records >= 10000) {
      std::vector<std::thread> helpers;
      for (size_t w = 1; w < parts.size(); ++w) helpers.emplace_back(finish, w);
      finish(0);
      for (std::thread& t : helpers) t.join();
    } else {
      for (size_t w = 0; w < parts.size(); ++w) finish(w);
    }
    std::vector<MemBatchPtr>& batches = out[table];
    for (Result<MemBatchPtr>& b : built) {
      if (!b.ok()) return b.status();
      batches.push_back(std::move(b).value());
    }
  }
  return out;
}

std::vector<JournalRecord::Range> InputQueues::JournalRanges(const StepInput& input) {
  std::vector<JournalRecord::Range> ranges;
  for (const auto& [table, list] : input) {
    for (const Range& r : list) ranges.push_back({r.segment, r.from, r.to});
  }
  return ranges;
}

void InputQueues::Completed(uint64_t last_token, uint64_t step) {
  MutexLock l(&mu_);
  done_token_ = std::max(done_token_, last_token);
  completed_.emplace_back(last_token, step);
  if (completed_.size() > 1000000) completed_.pop_front();
  completed_cv_.SignalAll();
}

void InputQueues::Durable(uint64_t token) {
  MutexLock l(&mu_);
  durable_token_ = std::max(durable_token_, token);
}

Result<Completion> InputQueues::CompletionOf(uint64_t token, uint64_t current_step) const {
  MutexLock l(&mu_);
  if (token == 0 || token >= next_token_) {
    return Status::NotFound("unknown token " + std::to_string(token));
  }
  Completion c;
  if (token >= lost_from_ && token < lost_to_) {
    c.lost = true;
    c.step = current_step;
    return c;
  }
  if (token > done_token_) {
    c.step = current_step;
    return c;
  }
  c.complete = true;
  c.durable = token <= durable_token_;
  auto it = std::lower_bound(completed_.begin(), completed_.end(), token,
                             [](const auto& e, uint64_t t) { return e.first < t; });
  c.step = it == completed_.end() ? current_step : it->second;
  c.from_step =
      it == completed_.begin() || it == completed_.end() ? c.step : std::prev(it)->second + 1;
  return c;
}

Status InputQueues::ResumeTokens(uint64_t reserved, bool replayed,
                                 std::function<Status(uint64_t)> reserve) {
  MutexLock l(&mu_);
  if (reserved >= next_token_) {
    if (replayed) {
      replay_gap_from_ = next_token_;
    } else {
      lost_from_ = next_token_;
      lost_to_ = reserved + 1;
    }
    next_token_ = reserved + 1;
  }
  reserve_tokens_ = std::move(reserve);
  reserved_token_ = next_token_ - 1;  // the next request reserves a block
  return Status::OK();
}

bool InputQueues::WaitComplete(uint64_t token, std::chrono::milliseconds timeout) const {
  const Clock::time_point deadline = Clock::now() + timeout;
  MutexLock l(&mu_);
  while (token > done_token_ && gate_ != Gate::kClosed) {
    if (!completed_cv_.WaitUntil(&mu_, deadline) && Clock::now() >= deadline) break;
  }
  return token <= done_token_;
}

uint64_t InputQueues::last_token() const {
  MutexLock l(&mu_);
  return next_token_ - 1;
}

Result<InputQueues::Saved> InputQueues::Save(uint64_t rotate_to) {
  Saved s;
  s.queues = kQueuesMagic;
  MutexLock l(&mu_);
  for (const auto& [table, q] : queues_) {
    for (const Segment& seg : q) {
      PutFixed32(&s.queues, static_cast<uint32_t>(table.size()));
      s.queues.append(table);
      const std::string source =
          seg.source < 0 ? "" : sources_[static_cast<size_t>(seg.source)].name;
      PutFixed32(&s.queues, static_cast<uint32_t>(source.size()));
      s.queues.append(source);
      PutFixed64(&s.queues, seg.id);
      PutFixed64(&s.queues, seg.next);
      EncodeChanges(*seg.changes, 0, seg.changes->size(), &s.queues);
    }
  }
  PutFixed64(&s.queues, Checksum64(s.queues.data(), s.queues.size()));
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (!source_state_[i].position.empty())
      s.positions[sources_[i].name] = source_state_[i].position;
  }
  s.next_token = next_token_;
  s.next_segment = next_segment_;
  // Input queued from here on goes to the journal of this checkpoint.
  if (journal_ != nullptr) SLUICE_RETURN_IF_ERROR(journal_->Rotate(rotate_to));
  return s;
}

Status InputQueues::Restore(const Saved& saved, bool changed_program,
                            const std::set<std::string>& changed_tables) {
  const std::string& data = saved.queues;
  uint64_t sum = 0;
  const bool v2 = data.size() >= 4 && data.compare(0, 4, kQueuesMagicV2) == 0;
  if (data.size() < 12 || (data.compare(0, 4, kQueuesMagic) != 0 && !v2) ||
      (std::memcpy(&sum, data.data() + data.size() - 8, 8),
       sum != Checksum64(data.data(), data.size() - 8))) {
    return Status::Corruption("queues.bin is torn or corrupted");
  }
  std::string_view in(data);
  in.remove_prefix(4);
  in.remove_suffix(8);
  MutexLock l(&mu_);
  next_segment_ = saved.next_segment;
  while (!in.empty()) {
    uint32_t len;
    std::string_view table, source;
    uint64_t id, taken = 0;
    auto changes = std::make_shared<format::ChangeBuffer>();
    if (!ConsumeFixed32(&in, &len) || !ConsumeBytes(&in, len, &table) ||
        !ConsumeFixed32(&in, &len) || !ConsumeBytes(&in, len, &source) ||
        !ConsumeFixed64(&in, &id) || (!v2 && !ConsumeFixed64(&in, &taken)) ||
        !DecodeChanges(&in, changes.get()) || taken > changes->size()) {
      return Status::Corruption("queues.bin is malformed");
    }
    const std::string name(table);
    if (queues_.count(name) == 0) {
      if (changed_program) continue;  // a table the program no longer has
      return Status::Corruption("queues.bin names table " + name +
                                ", which the program does not have");
    }
    if (changed_tables.count(name) > 0 && changes->size() > taken) {
      return Status::InvalidArgument(
          "table " + name + " changed, and " + std::to_string(changes->size() - taken) +
          " of its changes were queued in its old form at the checkpoint: restart with the "
          "program the checkpoint was taken with, let them be processed and take a checkpoint, "
          "then change the table");
    }
    if (changes->size() == taken) continue;
    SLUICE_RETURN_IF_ERROR(
        QueueLocked(name, SourceIndex(std::string(source)), std::move(changes), id, taken));
  }
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto p = saved.positions.find(sources_[i].name);
    if (p != saved.positions.end()) source_state_[i].position = p->second;
  }
  next_token_ = saved.next_token;
  done_token_ = durable_token_ = next_token_ - 1;
  return Status::OK();
}

Status InputQueues::QueueRecorded(const std::string& table, const std::string& source,
                                  const std::string& position,
                                  std::shared_ptr<const format::ChangeBuffer> changes,
                                  uint64_t id) {
  MutexLock l(&mu_);
  if (queues_.count(table) == 0) {
    return Status::Corruption("the input journal names table " + table +
                              ", which the program does not have");
  }
  const int src = SourceIndex(source);
  if (src >= 0) source_state_[static_cast<size_t>(src)].position = position;
  if (changes->empty()) return Status::OK();
  return QueueLocked(table, src, std::move(changes), id);
}

std::string InputQueues::position(size_t source) const {
  MutexLock l(&mu_);
  return source_state_.at(source).position;
}

uint64_t InputQueues::processed() const {
  MutexLock l(&mu_);
  return processed_;
}

uint64_t InputQueues::queued(size_t source) const {
  MutexLock l(&mu_);
  return source_state_.at(source).queued;
}

std::vector<InputStats> InputQueues::IngressStats() const {
  std::vector<InputStats> out;
  MutexLock l(&mu_);
  for (const auto& [table, c] : ingress_) {
    InputStats s;
    s.name = table + ".http";
    s.table = table;
    s.transport = "http_input";
    s.records = c.records;
    s.bytes = c.bytes;
    s.requests = c.requests;
    s.parse_errors = c.parse_errors;
    s.health = "Healthy";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace sluice::pipeline
