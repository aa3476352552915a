// strace runs as a child with its summary in a temporary file; SIGINT makes it detach and
// write the summary.
#include "bench/pointops/syscall_count.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace quarry::bench {
namespace {

bool IsRule(const std::string& line) {
  return !line.empty() && line.find_first_not_of("- ") == std::string::npos;
}

// True once every thread of `pid` reports a tracer: strace -f -p attaches them one by one.
bool AllThreadsTraced(int pid) {
  std::error_code error;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("TracerPid:", 0) == 0) {
        if (std::stoi(line.substr(10)) == 0) return false;
        any = true;
      }
    }
  }
  return any && !error;
}

}  // namespace

std::vector<SyscallCount> ParseStraceSummary(const std::string& summary) {
  // % time     seconds  usecs/call     calls    errors syscall
  // ------ ----------- ----------- --------- --------- ----------------
  //  62.50    0.000050          12         4           epoll_wait
  // ------ ----------- ----------- --------- --------- ----------------
  // 100.00    0.000080                     6         1 total
  // Rows lie between the two rules; errors is blank when there were none, so calls is the
  // fourth field counted from the left, and errors the fifth when a row has six.
  std::vector<SyscallCount> counts;
  std::istringstream lines(summary);
  std::string line;
  int rules = 0;
  while (std::getline(lines, line)) {
    if (IsRule(line)) {
      ++rules;
      continue;
    }
    if (rules != 1) continue;
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    if (words.size() < 5) continue;
    char* end = nullptr;
    const long long calls = std::strtoll(words[3].c_str(), &end, 10);
    if (end == words[3].c_str() || *end != '\0') continue;
    std::int64_t errors = 0;
    if (words.size() >= 6) errors = std::strtoll(words[4].c_str(), nullptr, 10);
    counts.push_back({words.back(), calls, errors});
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const SyscallCount& a, const SyscallCount& b) { return a.calls > b.calls; });
  return counts;
}

StatusWith<std::vector<SyscallCount>> CountSyscalls(int pid, const std::function<Status()>& work) {
  char path[] = "/tmp/pointops_strace.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return Status(ErrorCode::kOperationFailed, "cannot make a file for strace");
  close(fd);
  const std::string pid_text = std::to_string(pid);
  std::vector<std::string> args = {"strace", "-c", "-f", "-q", "-p", pid_text, "-o", path};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t strace_pid = 0;
  if (int error = posix_spawnp(&strace_pid, "strace", nullptr, nullptr, argv.data(), environ);
      error != 0) {
    unlink(path);
    return Status(ErrorCode::kOperationFailed,
                  std::string("cannot run strace: ") + std::strerror(error));
  }
  bool attached = false;
  bool exited = false;
  int exit_status = 0;
  for (int attempt = 0; attempt < 100 && !attached && !exited; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    attached = AllThreadsTraced(pid);
    exited = waitpid(strace_pid, &exit_status, WNOHANG) == strace_pid;
  }
  Status worked = attached && !exited ? work() : Status::OK();
  if (!exited) {
    kill(strace_pid, SIGINT);
    waitpid(strace_pid, &exit_status, 0);
  }
  std::ifstream file(path);
  std::stringstream summary;
  summary << file.rdbuf();
  unlink(path);
  if (!attached || exited) {
    return Status(ErrorCode::kOperationFailed,
                  "strace did not attach to process " + pid_text + ": " + summary.str());
  }
  QUARRY_RETURN_IF_ERROR(worked);
  return ParseStraceSummary(summary.str());
}

}  // namespace quarry::bench
