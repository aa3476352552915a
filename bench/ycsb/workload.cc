// One operation per RunOnce: a uniform draw picks the kind by the workload's shares, the key
// chooser picks the key, and a read-modify-write is timed as one operation.
#include "bench/ycsb/workload.h"

#include "bench/ycsb/record.h"
#include "bench/ycsb/zipfian.h"

namespace quarry::bench {
namespace {

class LoadClient : public TimedClient {
 public:
  LoadClient(std::unique_ptr<StoreSession> session, std::uint64_t records,
             std::atomic<std::uint64_t>* next_key)
      : session_(std::move(session)), records_(records), next_key_(next_key) {}

  StatusWith<bool> RunOnce(std::mt19937_64& random) override {
    const std::uint64_t index = next_key_->fetch_add(1, std::memory_order_relaxed);
    if (index >= records_) return false;
    QUARRY_RETURN_IF_ERROR(session_->Insert(UserKey(index), RandomRecord(random)));
    return true;
  }

 private:
  std::unique_ptr<StoreSession> session_;
  const std::uint64_t records_;
  std::atomic<std::uint64_t>* next_key_;
};

class WarmUpClient : public TimedClient {
 public:
  WarmUpClient(std::unique_ptr<StoreSession> session, std::uint64_t records,
               std::atomic<std::uint64_t>* next_key, std::atomic<std::int64_t>* failed_checks)
      : session_(std::move(session)),
        records_(records),
        next_key_(next_key),
        failed_checks_(failed_checks) {}

  StatusWith<bool> RunOnce(std::mt19937_64& /*random*/) override {
    const std::uint64_t index = next_key_->fetch_add(1, std::memory_order_relaxed);
    if (index >= records_) return false;
    QUARRY_ASSIGN_OR_RETURN(int fields, session_->Read(UserKey(index)));
    if (fields != kFieldCount) failed_checks_->fetch_add(1, std::memory_order_relaxed);
    return true;
  }

 private:
  std::unique_ptr<StoreSession> session_;
  const std::uint64_t records_;
  std::atomic<std::uint64_t>* next_key_;
  std::atomic<std::int64_t>* failed_checks_;
};

class WorkloadClient : public TimedClient {
 public:
  WorkloadClient(std::unique_ptr<StoreSession> session, const WorkloadSpec& workload,
                 InsertedKeys* keys, std::atomic<std::int64_t>* failed_checks)
      : session_(std::move(session)),
        workload_(workload),
        keys_(keys),
        failed_checks_(failed_checks),
        latest_(workload.key_choice == KeyChoice::kLatest ? keys->limit() : 1) {}

  StatusWith<bool> RunOnce(std::mt19937_64& random) override {
    double draw = UnitInterval(random);
    bool passed = true;
    if ((draw -= workload_.read) < 0) {
      QUARRY_ASSIGN_OR_RETURN(int fields, session_->Read(ChooseKey(random)));
      passed = fields == kFieldCount;
    } else if ((draw -= workload_.update) < 0) {
      QUARRY_ASSIGN_OR_RETURN(passed, UpdateOneField(ChooseKey(random), random));
    } else if ((draw -= workload_.insert) < 0) {
      const std::uint64_t index = keys_->Claim();
      QUARRY_RETURN_IF_ERROR(session_->Insert(UserKey(index), RandomRecord(random)));
      keys_->Acknowledge(index);
    } else if ((draw -= workload_.scan) < 0) {
      const int length = 1 + static_cast<int>(random() % kMaxScanLength);
      QUARRY_ASSIGN_OR_RETURN(passed, session_->Scan(ChooseKey(random), length));
    } else {
      const std::string key = ChooseKey(random);
      QUARRY_ASSIGN_OR_RETURN(int fields, session_->Read(key));
      QUARRY_ASSIGN_OR_RETURN(bool updated, UpdateOneField(key, random));
      passed = fields == kFieldCount && updated;
    }
    if (!passed) failed_checks_->fetch_add(1, std::memory_order_relaxed);
    return true;
  }

 private:
  std::string ChooseKey(std::mt19937_64& random) {
    const std::uint64_t limit = keys_->limit();
    return UserKey(workload_.key_choice == KeyChoice::kLatest
                       ? latest_.Next(random, limit)
                       : scrambled_zipfian_.Next(random, limit));
  }

  // YCSB's default update: one field, chosen uniformly, to a new value.
  StatusWith<bool> UpdateOneField(const std::string& key, std::mt19937_64& random) {
    const int field_idx = static_cast<int>(random() % kFieldCount);
    return session_->Update(key, field_idx, RandomFieldValue(random));
  }

  std::unique_ptr<StoreSession> session_;
  const WorkloadSpec& workload_;
  InsertedKeys* keys_;
  std::atomic<std::int64_t>* failed_checks_;
  // Made with the client, before the clock starts: each sums a zeta first.
  ScrambledZipfianChooser scrambled_zipfian_;
  LatestChooser latest_;
};

}  // namespace

const std::vector<WorkloadSpec>& CoreWorkloads() {
  static const std::vector<WorkloadSpec> workloads = {
      {.name = "A", .description = "50% read / 50% update", .read = 0.5, .update = 0.5},
      {.name = "B", .description = "95% read / 5% update", .read = 0.95, .update = 0.05},
      {.name = "C", .description = "read only", .read = 1},
      {.name = "F",
       .description = "50% read / 50% read-modify-write",
       .read = 0.5,
       .read_modify_write = 0.5},
      {.name = "D",
       .description = "95% read latest / 5% insert",
       .read = 0.95,
       .insert = 0.05,
       .key_choice = KeyChoice::kLatest},
      {.name = "E", .description = "95% scan / 5% insert", .insert = 0.05, .scan = 0.95},
  };
  return workloads;
}

ClientFactory LoadClients(StoreConnector connect, std::uint64_t records,
                          std::atomic<std::uint64_t>* next_key) {
  return [connect = std::move(connect), records,
          next_key]() -> StatusWith<std::unique_ptr<TimedClient>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<StoreSession> session, connect());
    return std::unique_ptr<TimedClient>(
        std::make_unique<LoadClient>(std::move(session), records, next_key));
  };
}

ClientFactory WarmUpClients(StoreConnector connect, std::uint64_t records,
                            std::atomic<std::uint64_t>* next_key,
                            std::atomic<std::int64_t>* failed_checks) {
  return [connect = std::move(connect), records, next_key,
          failed_checks]() -> StatusWith<std::unique_ptr<TimedClient>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<StoreSession> session, connect());
    return std::unique_ptr<TimedClient>(
        std::make_unique<WarmUpClient>(std::move(session), records, next_key, failed_checks));
  };
}

ClientFactory WorkloadClients(StoreConnector connect, const WorkloadSpec& workload,
                              InsertedKeys* keys, std::atomic<std::int64_t>* failed_checks) {
  return [connect = std::move(connect), &workload, keys,
          failed_checks]() -> StatusWith<std::unique_ptr<TimedClient>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<StoreSession> session, connect());
    return std::unique_ptr<TimedClient>(
        std::make_unique<WorkloadClient>(std::move(session), workload, keys, failed_checks));
  };
}

}  // namespace quarry::bench
