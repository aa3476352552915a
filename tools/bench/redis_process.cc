#include "tools/bench/redis_process.h"

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "tools/client/redis_session.h"

extern char** environ;

namespace quarry::tools::bench {
namespace {

// A port nothing listens on now (the kernel's pick for port 0).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

StatusWith<std::unique_ptr<RedisProcess>> RedisProcess::Start(const std::string& binary) {
  const int port = FreePort();
  std::string dir =
      (std::filesystem::temp_directory_path() / ("quarry-redis-" + std::to_string(getpid())))
          .string();
  std::filesystem::create_directories(dir);
  std::vector<std::string> args = {
      binary,         "--bind", "127.0.0.1", "--port", std::to_string(port), "--save",          "",
      "--appendonly", "no",     "--dir",     dir,      "--logfile",          dir + "/redis.log"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, binary.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    return Status(ErrorCode::kOperationFailed, "cannot run " + binary + " (Debian's redis-server)");
  }
  auto process = std::unique_ptr<RedisProcess>(new RedisProcess(pid, port, dir));
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (client::RedisSession::Connect(port).ok()) return process;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status(ErrorCode::kOperationFailed,
                binary + " did not answer on port " + std::to_string(port));
}

RedisProcess::~RedisProcess() {
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace quarry::tools::bench
