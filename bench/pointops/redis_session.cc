// hiredis calls behind RedisSession; each checks the reply's type and size.
#include "bench/pointops/redis_session.h"

#include <hiredis/hiredis.h>

namespace quarry::bench {
namespace {

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

}  // namespace

StatusWith<std::unique_ptr<RedisSession>> RedisSession::Connect(int port) {
  redisContext* context = redisConnect("127.0.0.1", port);
  if (context == nullptr || context->err != 0) {
    Status status(ErrorCode::kHostUnreachable,
                  "cannot reach Redis on 127.0.0.1:" + std::to_string(port) + ": " +
                      (context ? context->errstr : "out of memory"));
    if (context != nullptr) redisFree(context);
    return status;
  }
  return std::unique_ptr<RedisSession>(new RedisSession(context));
}

RedisSession::~RedisSession() { redisFree(context_); }

Status RedisSession::Set(const std::string& key, const std::string& value) {
  ReplyPtr reply(static_cast<redisReply*>(
      redisCommand(context_, "SET %b %b", key.data(), key.size(), value.data(), value.size())));
  if (reply == nullptr) {
    return Status(ErrorCode::kHostUnreachable, std::string("Redis SET: ") + context_->errstr);
  }
  if (reply->type != REDIS_REPLY_STATUS) {
    return Status(ErrorCode::kOperationFailed, "Redis refused SET " + key);
  }
  return Status::OK();
}

Status RedisSession::Get(const std::string& key, std::size_t value_bytes) {
  ReplyPtr reply(
      static_cast<redisReply*>(redisCommand(context_, "GET %b", key.data(), key.size())));
  if (reply == nullptr) {
    return Status(ErrorCode::kHostUnreachable, std::string("Redis GET: ") + context_->errstr);
  }
  if (reply->type != REDIS_REPLY_STRING || reply->len != value_bytes) {
    return Status(ErrorCode::kOperationFailed, "Redis has no value of the right size for " + key);
  }
  return Status::OK();
}

}  // namespace quarry::bench
