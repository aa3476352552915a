// YCSB's operations on Redis: a hash per record (HSET, HGETALL, HSET of one field) and, for
// scans, a sorted set of every key at score 0, so ZRANGEBYLEX walks the keys in order; the
// scanned hashes are then fetched in one pipeline.
#include <hiredis/hiredis.h>

#include "bench/clients/redis_session.h"
#include "bench/ycsb/store_session.h"

namespace quarry::bench {
namespace {

constexpr std::string_view kKeyIndex = "usertable";

bool IsInteger(const RedisReplyPtr& reply, long long value) {
  return reply->type == REDIS_REPLY_INTEGER && reply->integer == value;
}

// The record fields of an HGETALL reply that came back whole.
int RecordFields(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ARRAY) return 0;
  int fields = 0;
  for (std::size_t element_idx = 0; element_idx + 1 < reply.elements; element_idx += 2) {
    const redisReply& name = *reply.element[element_idx];
    const redisReply& value = *reply.element[element_idx + 1];
    if (name.type == REDIS_REPLY_STRING && value.type == REDIS_REPLY_STRING &&
        IsRecordField(std::string_view(name.str, name.len), value.len)) {
      ++fields;
    }
  }
  return fields;
}

Status Refused(const char* command, const std::string& key) {
  return Status(ErrorCode::kOperationFailed, std::string("Redis refused ") + command + " " + key);
}

class RedisStore : public StoreSession {
 public:
  explicit RedisStore(std::unique_ptr<RedisSession> session) : session_(std::move(session)) {}

  Status Reset() override {
    QUARRY_ASSIGN_OR_RETURN(RedisReplyPtr reply, session_->Run({"FLUSHDB"}));
    if (reply->type != REDIS_REPLY_STATUS) return Refused("FLUSHDB", "");
    return Status::OK();
  }

  Status Insert(const std::string& key, const Record& record) override {
    RedisCommand hset = {"HSET", key};
    for (int field_idx = 0; field_idx < kFieldCount; ++field_idx) {
      hset.push_back(FieldName(field_idx));
      hset.push_back(record[field_idx]);
    }
    QUARRY_ASSIGN_OR_RETURN(std::vector<RedisReplyPtr> replies,
                            session_->Pipeline({hset, {"ZADD", kKeyIndex, "0", key}}));
    if (!IsInteger(replies[0], kFieldCount)) return Refused("HSET", key);
    if (!IsInteger(replies[1], 1)) return Refused("ZADD", key);
    return Status::OK();
  }

  StatusWith<int> Read(const std::string& key) override {
    QUARRY_ASSIGN_OR_RETURN(RedisReplyPtr reply, session_->Run({"HGETALL", key}));
    return RecordFields(*reply);
  }

  StatusWith<bool> Update(const std::string& key, int field_idx,
                          const std::string& value) override {
    QUARRY_ASSIGN_OR_RETURN(RedisReplyPtr reply,
                            session_->Run({"HSET", key, FieldName(field_idx), value}));
    // HSET answers how many fields it added: none when the record had the field already.
    return IsInteger(reply, 0);
  }

  StatusWith<bool> Scan(const std::string& start, int count) override {
    const std::string from = "[" + start;
    const std::string limit = std::to_string(count);
    QUARRY_ASSIGN_OR_RETURN(RedisReplyPtr keys, session_->Run({"ZRANGEBYLEX", kKeyIndex, from, "+",
                                                               "LIMIT", "0", limit}));
    if (keys->type != REDIS_REPLY_ARRAY) return Refused("ZRANGEBYLEX", start);
    std::vector<RedisCommand> reads;
    reads.reserve(keys->elements);
    for (std::size_t key_idx = 0; key_idx < keys->elements; ++key_idx) {
      const redisReply& key = *keys->element[key_idx];
      reads.push_back({"HGETALL", std::string_view(key.str, key.len)});
    }
    QUARRY_ASSIGN_OR_RETURN(std::vector<RedisReplyPtr> records, session_->Pipeline(reads));
    ScanCheck check(start);
    for (std::size_t record_idx = 0; record_idx < records.size(); ++record_idx) {
      check.Add(reads[record_idx][1], RecordFields(*records[record_idx]));
    }
    return check.Passed(count);
  }

 private:
  std::unique_ptr<RedisSession> session_;
};

}  // namespace

StatusWith<std::unique_ptr<StoreSession>> ConnectRedisStore(int port) {
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<RedisSession> session, RedisSession::Connect(port));
  return std::unique_ptr<StoreSession>(std::make_unique<RedisStore>(std::move(session)));
}

}  // namespace quarry::bench
