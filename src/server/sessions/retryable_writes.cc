// Statement records of retryable writes. Meta name: "session/" + the lsid's 16 bytes + a
// sequence number (4 bytes, big-endian), one record per commit chunk that executed statements
// of the session's latest write. Value: {txn: Long, at: Date, executed: [lo, hi, lo, hi, ...]
// (half-open ranges of statement numbers), outcomes: [{stmt, outcome: {...}}, ...] (only the
// statements whose outcome is not {})}.
#include "server/sessions/retryable_writes.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/endian.h"
#include "base/log.h"
#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/meta_store.h"
#include "storage/write_unit.h"

namespace quarry::server {
namespace {

constexpr std::string_view kRecordPrefix = storage::kSessionNamePrefix;
constexpr std::size_t kIdBytes = storage::kSessionIdBytes;
constexpr std::size_t kKeyBytes = kRecordPrefix.size() + kIdBytes + 4;
// Names written before records held their write's number: the number sat between the lsid and
// the sequence number.
constexpr std::size_t kNumberedKeyBytes = kRecordPrefix.size() + kIdBytes + 8 + 4;

// Statement numbers as sorted, disjoint half-open ranges: a bulk write executes long runs of
// consecutive statements, so this stays small.
class StatementSet {
 public:
  void Add(std::size_t lo, std::size_t hi) {
    ranges_.emplace_back(lo, hi);
    std::sort(ranges_.begin(), ranges_.end());
    std::vector<std::pair<std::size_t, std::size_t>> merged;
    for (const auto& range : ranges_) {
      if (!merged.empty() && range.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, range.second);
      } else {
        merged.push_back(range);
      }
    }
    ranges_ = std::move(merged);
  }
  bool Contains(std::size_t stmt) const {
    auto it =
        std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(stmt, std::size_t(-1)));
    return it != ranges_.begin() && stmt < std::prev(it)->second;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
};

}  // namespace

std::string SessionRecordsPrefix(const std::string& session_id) {
  std::string key(kRecordPrefix);
  key.append(session_id);
  return key;
}

std::string RecordName(const std::string& session_id, std::uint32_t seq) {
  std::string key = SessionRecordsPrefix(session_id);
  AppendBigEndian(seq, 4, &key);
  return key;
}

std::int64_t RecordTxnNumber(std::string_view value) {
  if (value.size() < 5) return -1;
  const bson::ValueView txn = bson::DocumentView(value.data()).Get("txn");
  return txn.type() == bson::Type::kInt64 ? txn.Int64() : -1;
}

// One attempt of a retryable write: what earlier attempts executed, read from the records, and
// the records this attempt adds with each commit chunk.
class RetryableWrites::Attempt final : public commands::RetryableWrite {
 public:
  Attempt(RetryableWrites* owner, std::string session_id, std::int64_t txn_number)
      : owner_(owner), session_id_(std::move(session_id)), txn_number_(txn_number) {}

  ~Attempt() override {
    if (retried_ > 0 && owner_->metrics_ != nullptr) {
      owner_->metrics_->retried_commands.fetch_add(1);
      owner_->metrics_->retried_statements.fetch_add(retried_);
    }
    {
      std::lock_guard lock(owner_->mu_);
      Session& session = owner_->sessions_[session_id_];
      if (next_seq_ > 0) {
        session.records_txn = txn_number_;
        session.records = next_seq_;
      }
    }
    owner_->Release(session_id_);
  }

  // Reads the records earlier attempts of this write left.
  Status Load(storage::Engine* engine, std::uint32_t records) {
    QUARRY_ASSIGN_OR_RETURN(auto stored, engine->meta().List(SessionRecordsPrefix(session_id_)));
    for (const auto& [name, value] : stored) {
      if (name.size() != kKeyBytes || RecordTxnNumber(value) != txn_number_) continue;
      bson::DocumentView record(value.data());
      bson::ValueView executed = record.Get("executed");
      if (executed.type() == bson::Type::kArray) {
        std::vector<std::int64_t> bounds;
        for (const bson::Element& e : executed.Document()) bounds.push_back(e.value.AsInt64());
        for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
          executed_.Add(static_cast<std::size_t>(bounds[i]),
                        static_cast<std::size_t>(bounds[i + 1]));
        }
      }
      bson::ValueView outcomes = record.Get("outcomes");
      if (outcomes.type() == bson::Type::kArray) {
        for (const bson::Element& e : outcomes.Document()) {
          if (e.value.type() != bson::Type::kDocument) continue;
          bson::ValueView stmt = e.value.Document().Get("stmt");
          bson::ValueView outcome = e.value.Document().Get("outcome");
          if (!stmt.IsNumber() || outcome.type() != bson::Type::kDocument) continue;
          executed_outcomes_[static_cast<std::size_t>(stmt.AsInt64())] =
              bson::Document::Copy(outcome.Document());
        }
      }
    }
    next_seq_ = records;
    return Status::OK();
  }

  // The `records` records of an older write of the session: this attempt's first record
  // replaces the first of them and deletes the others, in one write.
  void ReplaceOlder(std::uint32_t records) {
    for (std::uint32_t seq = 1; seq < records; ++seq) {
      stale_.push_back(RecordName(session_id_, seq));
    }
  }

  // Handlers ask once per statement, so each one found is a statement retried.
  std::optional<bson::Document> Executed(std::size_t stmt) const override {
    if (!executed_.Contains(stmt)) return std::nullopt;
    ++retried_;
    auto it = executed_outcomes_.find(stmt);
    return it == executed_outcomes_.end() ? bson::Document() : it->second;
  }

  void Record(storage::WriteUnit* unit, std::size_t mutation, std::size_t stmt,
              bson::DocumentView outcome) override {
    unit->Tag(mutation, stmt);
    if (!outcome.empty()) outcomes_[stmt] = bson::Document::Copy(outcome);
    if (!unit->has_chunk_record()) {
      unit->SetChunkRecord([this](std::span<const std::uint64_t> stmts) { return Encode(stmts); });
    }
  }

 private:
  // The record of one commit chunk. Runs under the commit lock.
  storage::WriteUnit::MetaEntry Encode(std::span<const std::uint64_t> stmts) {
    bson::DocumentBuilder b;
    b.AppendInt64("txn", txn_number_);
    b.AppendDate("at", NowMillis());
    // Written in place: an array builder of its own, finished and copied in, cost ~550 of the
    // record's ~2,500 instructions.
    b.OpenArray("executed");
    std::size_t i = 0;
    std::size_t bounds = 0;
    while (i < stmts.size()) {
      std::size_t j = i + 1;
      while (j < stmts.size() && stmts[j] == stmts[j - 1] + 1) ++j;
      b.AppendInt64(std::to_string(bounds++), static_cast<std::int64_t>(stmts[i]));
      b.AppendInt64(std::to_string(bounds++), static_cast<std::int64_t>(stmts[j - 1] + 1));
      i = j;
    }
    b.Close();
    b.OpenArray("outcomes");
    std::size_t count = 0;
    for (std::uint64_t stmt : stmts) {
      auto it = outcomes_.find(stmt);
      if (it == outcomes_.end()) continue;
      b.OpenDocument(std::to_string(count++))
          .AppendInt64("stmt", static_cast<std::int64_t>(stmt))
          .AppendDocument("outcome", it->second)
          .Close();
    }
    b.Close();
    storage::WriteUnit::MetaEntry entry;
    entry.name = RecordName(session_id_, next_seq_++);
    entry.value = std::move(b).FinishBytes();
    entry.deletes = std::exchange(stale_, {});
    return entry;
  }

  RetryableWrites* owner_;
  std::string session_id_;
  std::int64_t txn_number_;
  StatementSet executed_;                                    // by earlier attempts
  std::map<std::size_t, bson::Document> executed_outcomes_;  // their outcomes other than {}
  std::map<std::size_t, bson::Document> outcomes_;           // this attempt's, other than {}
  std::uint32_t next_seq_ = 0;
  std::vector<std::string> stale_;
  mutable std::int64_t retried_ = 0;  // statements Executed found, counted when it ends
};

namespace {

// One stored record as Attach reads it, whichever way it is named.
struct StoredRecord {
  const std::string* name;
  const std::string* value;
  std::string session_id;
  std::int64_t txn = -1;
  std::uint32_t seq = 0;
  bool numbered_name = false;  // named the earlier way: rewritten under today's name
};

std::optional<StoredRecord> ReadStoredRecord(const std::string& name, const std::string& value) {
  StoredRecord record{.name = &name, .value = &value, .session_id = {}};
  const char* after_id = name.data() + kRecordPrefix.size() + kIdBytes;
  if (name.size() == kKeyBytes) {
    record.txn = RecordTxnNumber(value);
    if (record.txn < 0) return std::nullopt;
    record.seq = static_cast<std::uint32_t>(LoadBigEndian(after_id, 4));
  } else if (name.size() == kNumberedKeyBytes && value.size() >= 5) {
    record.txn = static_cast<std::int64_t>(LoadBigEndian64(after_id));
    record.seq = static_cast<std::uint32_t>(LoadBigEndian(after_id + 8, 4));
    record.numbered_name = true;
  } else {
    return std::nullopt;
  }
  record.session_id = name.substr(kRecordPrefix.size(), kIdBytes);
  return record;
}

// A record named the earlier way, as today's form holds it: its write's number first.
std::string WithTxnNumber(std::int64_t txn, std::string_view value) {
  bson::DocumentBuilder b;
  b.AppendInt64("txn", txn);
  for (const bson::Element& e : bson::DocumentView(value.data())) {
    if (e.key != "txn") b.Append(e.key, e.value);
  }
  return std::move(b).FinishBytes();
}

}  // namespace

Status RetryableWrites::Attach(storage::Engine* engine, commands::TransactionMetrics* metrics) {
  metrics_ = metrics;
  QUARRY_ASSIGN_OR_RETURN(auto stored, engine->meta().List(kRecordPrefix));
  struct Found {
    std::int64_t txn = -1;
    std::int64_t newest_ms = 0;
    std::uint32_t records = 0;
  };
  std::vector<StoredRecord> records;
  std::map<std::string, Found> found;
  storage::WriteUnit changes;
  for (const auto& [name, value] : stored) {
    std::optional<StoredRecord> record = ReadStoredRecord(name, value);
    if (!record.has_value()) {
      changes.DeleteMeta(name);
      continue;
    }
    Found& f = found[record->session_id];
    if (record->txn > f.txn) f = Found{record->txn, 0, 0};
    if (record->txn == f.txn) {
      ++f.records;
      const bson::ValueView at = bson::DocumentView(value.data()).Get("at");
      if (at.type() == bson::Type::kDate) f.newest_ms = std::max(f.newest_ms, at.Date());
    }
    records.push_back(std::move(*record));
  }
  const std::int64_t oldest_kept =
      NowMillis() - std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count();
  std::lock_guard lock(mu_);
  engine_ = engine;
  for (const StoredRecord& record : records) {
    const Found& f = found[record.session_id];
    const bool kept = record.txn == f.txn && f.newest_ms >= oldest_kept;
    if (record.numbered_name) {
      changes.DeleteMeta(*record.name);
      if (kept) {
        changes.PutMeta(RecordName(record.session_id, record.seq),
                        WithTxnNumber(record.txn, *record.value));
      }
    } else if (!kept) {
      changes.DeleteMeta(*record.name);
    }
  }
  for (const auto& [id, f] : found) {
    if (f.newest_ms < oldest_kept) continue;
    Session& session = sessions_[id];
    session.txn_number = f.txn;
    session.records_txn = f.txn;
    session.records = f.records;
  }
  if (changes.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          engine->pipeline().Commit(std::move(changes), storage::CommitOptions{}));
  return result.errors.empty() ? Status::OK() : result.errors.front().status;
}

StatusWith<std::unique_ptr<commands::RetryableWrite>> RetryableWrites::Begin(
    const std::string& session_id, std::int64_t txn_number) {
  std::unique_lock lock(mu_);
  released_.wait(lock, [&] { return !BusyLocked(session_id); });
  Session& session = sessions_[session_id];
  if (txn_number < session.txn_number) {
    return Status(ErrorCode::kTransactionTooOld,
                  "Retryable write with txnNumber " + std::to_string(txn_number) +
                      " is prohibited on session because a newer retryable write with txnNumber " +
                      std::to_string(session.txn_number) + " has already started on this session.");
  }
  session.busy = true;
  session.txn_number = txn_number;
  const std::int64_t records_txn = session.records_txn;
  const std::uint32_t records = session.records;
  lock.unlock();
  // From here the attempt owns the session: its destructor releases it.
  auto attempt = std::make_unique<Attempt>(this, session_id, txn_number);
  if (records > 0 && records_txn == txn_number && engine_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(attempt->Load(engine_, records));
  } else if (records > 0 && records_txn < txn_number) {
    attempt->ReplaceOlder(records);
  }
  return std::unique_ptr<commands::RetryableWrite>(std::move(attempt));
}

std::int64_t RetryableWrites::LatestNumber(const std::string& session_id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session_id);
  return it == sessions_.end() ? -1 : it->second.txn_number;
}

// Looked up by name at each wake-up: a waiter must not keep a reference to the entry, which
// Forget (endSessions from another connection) may erase while it waits.
bool RetryableWrites::BusyLocked(const std::string& session_id) const {
  auto it = sessions_.find(session_id);
  return it != sessions_.end() && it->second.busy;
}

void RetryableWrites::Release(const std::string& session_id) {
  {
    std::lock_guard lock(mu_);
    sessions_[session_id].busy = false;
  }
  released_.notify_all();
}

void RetryableWrites::Forget(const std::string& session_id) {
  storage::WriteUnit unit;
  {
    std::unique_lock lock(mu_);
    released_.wait(lock, [&] { return !BusyLocked(session_id); });
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    // Seq 0 also when no write left records: a committed transaction may have left its own.
    for (std::uint32_t seq = 0; seq < std::max<std::uint32_t>(it->second.records, 1); ++seq) {
      unit.DeleteMeta(RecordName(session_id, seq));
    }
    sessions_.erase(it);
  }
  if (unit.empty() || engine_ == nullptr) return;
  StatusWith<storage::CommitResult> result =
      engine_->pipeline().Commit(std::move(unit), storage::CommitOptions{});
  if (!result.ok() || !result.value().errors.empty()) {
    // Harmless: records of a session nobody uses are dropped at the next start.
    log::Write(log::Severity::kWarning, "COMMAND", 5531900, "",
               "Could not delete an ended session's retryable-write records",
               {{"error", result.ok() ? result.value().errors[0].status.ToString()
                                      : result.status().ToString()}});
  }
}

}  // namespace quarry::server
