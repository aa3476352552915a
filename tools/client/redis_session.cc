// hiredis calls behind RedisSession; Set and Get check the reply's type and size, Run and
// Pipeline leave that to the caller.
#include "tools/client/redis_session.h"

#include <hiredis/hiredis.h>

namespace quarry::tools::client {

void RedisReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

StatusWith<std::unique_ptr<RedisSession>> RedisSession::Connect(int port, const std::string& host) {
  redisContext* context = redisConnect(host.c_str(), port);
  if (context == nullptr || context->err != 0) {
    Status status(ErrorCode::kHostUnreachable, "cannot reach Redis on " + host + ":" +
                                                   std::to_string(port) + ": " +
                                                   (context ? context->errstr : "out of memory"));
    if (context != nullptr) redisFree(context);
    return status;
  }
  return std::unique_ptr<RedisSession>(new RedisSession(context));
}

RedisSession::~RedisSession() { redisFree(context_); }

Status RedisSession::Set(const std::string& key, const std::string& value) {
  RedisReplyPtr reply(static_cast<redisReply*>(
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
  RedisReplyPtr reply(
      static_cast<redisReply*>(redisCommand(context_, "GET %b", key.data(), key.size())));
  if (reply == nullptr) {
    return Status(ErrorCode::kHostUnreachable, std::string("Redis GET: ") + context_->errstr);
  }
  if (reply->type != REDIS_REPLY_STRING || reply->len != value_bytes) {
    return Status(ErrorCode::kOperationFailed, "Redis has no value of the right size for " + key);
  }
  return Status::OK();
}

StatusWith<std::string> RedisSession::GetValue(const std::string& key) {
  RedisReplyPtr reply(
      static_cast<redisReply*>(redisCommand(context_, "GET %b", key.data(), key.size())));
  if (reply == nullptr) {
    return Status(ErrorCode::kHostUnreachable, std::string("Redis GET: ") + context_->errstr);
  }
  if (reply->type != REDIS_REPLY_STRING) {
    return Status(ErrorCode::kOperationFailed, "Redis has no value for " + key);
  }
  return std::string(reply->str, reply->len);
}

StatusWith<std::int64_t> RedisSession::InfoStat(const std::string& field) {
  RedisReplyPtr reply(static_cast<redisReply*>(redisCommand(context_, "INFO stats")));
  if (reply == nullptr || reply->type != REDIS_REPLY_STRING) {
    return Status(ErrorCode::kOperationFailed, "Redis INFO stats failed");
  }
  const std::string text(reply->str, reply->len);
  const std::size_t at = text.find(field + ":");
  if (at == std::string::npos)
    return Status(ErrorCode::kOperationFailed, "Redis INFO has no " + field);
  return std::stoll(text.substr(at + field.size() + 1));
}

StatusWith<RedisReplyPtr> RedisSession::Run(const RedisCommand& command) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<RedisReplyPtr> replies, Pipeline({command}));
  return std::move(replies.front());
}

StatusWith<std::vector<RedisReplyPtr>> RedisSession::Pipeline(
    const std::vector<RedisCommand>& commands) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const RedisCommand& command : commands) {
    argv.clear();
    lengths.clear();
    for (std::string_view argument : command) {
      argv.push_back(argument.data());
      lengths.push_back(argument.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(),
                               lengths.data()) != REDIS_OK) {
      return Status(ErrorCode::kOperationFailed,
                    std::string("Redis: cannot queue a command: ") + context_->errstr);
    }
  }
  std::vector<RedisReplyPtr> replies;
  replies.reserve(commands.size());
  for (std::size_t reply_idx = 0; reply_idx < commands.size(); ++reply_idx) {
    void* reply = nullptr;
    if (redisGetReply(context_, &reply) != REDIS_OK || reply == nullptr) {
      return Status(ErrorCode::kHostUnreachable, std::string("Redis: ") + context_->errstr);
    }
    replies.emplace_back(static_cast<redisReply*>(reply));
  }
  return replies;
}

}  // namespace quarry::tools::client
