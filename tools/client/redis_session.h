// One connection to Redis through hiredis, for the benchmarks that compare with it (bench/ and
// `quarry bench large-docs`): the string commands they time, and any command or pipeline. Not
// thread-safe: one per client thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

struct redisContext;
struct redisReply;

namespace quarry::tools::client {

struct RedisReplyDeleter {
  void operator()(redisReply* reply) const;
};
// A reply as hiredis parsed it (hiredis/hiredis.h declares its fields).
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

// One command as its arguments, e.g. {"HGETALL", key}; the views must outlive the call.
using RedisCommand = std::vector<std::string_view>;

class RedisSession {
 public:
  // Connects to Redis on `host`:`port`.
  static StatusWith<std::unique_ptr<RedisSession>> Connect(int port,
                                                           const std::string& host = "127.0.0.1");
  ~RedisSession();
  RedisSession(const RedisSession&) = delete;
  RedisSession& operator=(const RedisSession&) = delete;

  Status Set(const std::string& key, const std::string& value);
  // GET `key`; fails unless it holds a value of `value_bytes` bytes.
  Status Get(const std::string& key, std::size_t value_bytes);
  // GET `key`'s value; fails when there is none.
  StatusWith<std::string> GetValue(const std::string& key);
  // A field of INFO's stats section as a number (e.g. total_net_input_bytes).
  StatusWith<std::int64_t> InfoStat(const std::string& field);

  // Runs `command` and returns its reply, which may be a Redis error reply. Fails with
  // kHostUnreachable when the connection does.
  StatusWith<RedisReplyPtr> Run(const RedisCommand& command);
  // Sends every command, then reads their replies in order: one round trip for all.
  StatusWith<std::vector<RedisReplyPtr>> Pipeline(const std::vector<RedisCommand>& commands);

 private:
  explicit RedisSession(redisContext* context) : context_(context) {}

  redisContext* context_;
};

}  // namespace quarry::tools::client
