// One connection to Redis through hiredis, with the commands the benchmark times. Not
// thread-safe: one per client thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

struct redisContext;

namespace quarry::bench {

class RedisSession {
 public:
  // Connects to Redis on 127.0.0.1:`port`.
  static StatusWith<std::unique_ptr<RedisSession>> Connect(int port);
  ~RedisSession();
  RedisSession(const RedisSession&) = delete;
  RedisSession& operator=(const RedisSession&) = delete;

  Status Set(const std::string& key, const std::string& value);
  // GET `key`; fails unless it holds a value of `value_bytes` bytes.
  Status Get(const std::string& key, std::size_t value_bytes);

 private:
  explicit RedisSession(redisContext* context) : context_(context) {}

  redisContext* context_;
};

}  // namespace quarry::bench
