// A Redis server this process starts on a free 127.0.0.1 port, without persistence, and stops
// (by PID) when destroyed: the baseline of the benchmarks that compare with Redis.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace quarry::tools::bench {

class RedisProcess {
 public:
  // Fails when `binary` cannot run or does not answer within a few seconds.
  static StatusWith<std::unique_ptr<RedisProcess>> Start(const std::string& binary);
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  RedisProcess(pid_t pid, int port, std::string dir)
      : pid_(pid), port_(port), dir_(std::move(dir)) {}

  pid_t pid_;
  int port_;
  std::string dir_;
};

}  // namespace quarry::tools::bench
