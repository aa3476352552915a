// Part 6: the server's start-up with a search index, from the snapshot written at a clean
// shutdown and again with the snapshots removed (a rebuild from the collection). The server is
// stopped and started again from its own command line, read from /proc, so this part runs last
// and stops the server it started itself.
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "bench/clients/search_index.h"
#include "bench/vector/hnswlib_baseline.h"
#include "bench/vector/parts.h"

extern char** environ;

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

constexpr double kStopTimeoutSeconds = 120;
constexpr double kListenTimeoutSeconds = 120;

// How to start the measured server again: as it was started.
struct ServerCommand {
  std::string binary;  // the executable, resolved while the process runs
  std::string cwd;
  std::vector<std::string> args;
  std::string dbpath;
  int port = 27017;
};

std::optional<std::string> ReadLink(const std::string& path) {
  std::error_code ec;
  std::filesystem::path target = std::filesystem::read_symlink(path, ec);
  if (ec) return std::nullopt;
  return target.string();
}

// The value after `--name` or in `--name=value`, if the command line has one.
std::optional<std::string> OptionValue(const std::vector<std::string>& args,
                                       const std::string& name) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == name && i + 1 < args.size()) return args[i + 1];
    if (args[i].starts_with(name + "=")) return args[i].substr(name.size() + 1);
  }
  return std::nullopt;
}

StatusWith<ServerCommand> CommandOf(int pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream cmdline(proc + "/cmdline", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(cmdline)),
                          std::istreambuf_iterator<char>());
  std::optional<std::string> binary = ReadLink(proc + "/exe");
  std::optional<std::string> cwd = ReadLink(proc + "/cwd");
  if (bytes.empty() || !binary || !cwd) {
    return Status(ErrorCode::kOperationFailed,
                  "cannot read the command line of server process " + std::to_string(pid));
  }
  ServerCommand command;
  command.binary = *binary;
  command.cwd = *cwd;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t end = bytes.find('\0', at);
    command.args.push_back(bytes.substr(at, end - at));
    at = end == std::string::npos ? bytes.size() : end + 1;
  }
  std::optional<std::string> dbpath = OptionValue(command.args, "--dbpath");
  if (!dbpath) {
    return Status(ErrorCode::kOperationFailed,
                  "the server's command line names no --dbpath, where its snapshots are");
  }
  command.dbpath = std::filesystem::path(*dbpath).is_absolute() ? *dbpath : *cwd + "/" + *dbpath;
  if (std::optional<std::string> port = OptionValue(command.args, "--port")) {
    command.port = std::stoi(*port);
  }
  return command;
}

bool PortAccepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool accepted = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return accepted;
}

// Whether process `pid` has ended: gone, or a zombie its parent has not reaped yet.
bool Ended(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t paren = line.rfind(')');
  return paren == std::string::npos || line.substr(paren + 2, 1) == "Z";
}

// SIGTERM (a clean shutdown, which writes the snapshots), then waits for the process to end.
Status StopServer(int pid) {
  if (kill(pid, SIGTERM) != 0) {
    return Status(ErrorCode::kOperationFailed,
                  "cannot signal server process " + std::to_string(pid));
  }
  const Clock::time_point start = Clock::now();
  while (!Ended(pid)) {
    if (SecondsSince(start) > kStopTimeoutSeconds) {
      return Status(ErrorCode::kExceededTimeLimit,
                    "server process " + std::to_string(pid) + " did not stop");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::OK();
}

// A server this part started; stopped and reaped when destroyed.
class StartedServer {
 public:
  static StatusWith<std::unique_ptr<StartedServer>> Start(const ServerCommand& command) {
    std::vector<std::string> args = command.args;
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, command.cwd.c_str());
    pid_t pid = 0;
    const int failed =
        posix_spawn(&pid, command.binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (failed != 0) {
      return Status(ErrorCode::kOperationFailed, "cannot start " + command.binary);
    }
    return std::unique_ptr<StartedServer>(new StartedServer(pid));
  }
  ~StartedServer() {
    if (!exited_ && StopServer(pid_).ok()) waitpid(pid_, nullptr, 0);
  }
  // Whether the process has ended by itself (it is then reaped).
  bool Exited() {
    if (!exited_) exited_ = waitpid(pid_, nullptr, WNOHANG) == pid_;
    return exited_;
  }
  StartedServer(const StartedServer&) = delete;
  StartedServer& operator=(const StartedServer&) = delete;

 private:
  explicit StartedServer(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  bool exited_ = false;
};

struct StartTimes {
  double listening = 0;  // from the start of the process until its port accepts
  double ready = 0;      // until the search index is READY
};

// Starts the server and times it, leaving it running in `*server`.
StatusWith<StartTimes> TimedStart(const ServerCommand& command, const VectorBenchSettings& settings,
                                  std::unique_ptr<StartedServer>* server) {
  const Clock::time_point start = Clock::now();
  QUARRY_ASSIGN_OR_RETURN(*server, StartedServer::Start(command));
  StartTimes times;
  while (!PortAccepts(command.port)) {
    if ((*server)->Exited()) {
      return Status(ErrorCode::kOperationFailed,
                    "the restarted server exited before it listened (see its log)");
    }
    if (SecondsSince(start) > kListenTimeoutSeconds) {
      return Status(ErrorCode::kExceededTimeLimit, "the restarted server did not listen");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  times.listening = SecondsSince(start);
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<tc::MongoClient> client,
      tc::MongoClient::Connect({.uri = settings.uri, .app_name = "vector_bench"}));
  QUARRY_RETURN_IF_ERROR(WaitUntilReady(*client, settings.db, settings.collection,
                                        IndexSpecOf(settings).name, settings.ready_timeout));
  times.ready = SecondsSince(start);
  return times;
}

// Bytes of the files under `dir` (0 when there is none).
std::int64_t BytesUnder(const std::string& dir) {
  std::int64_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) bytes += static_cast<std::int64_t>(it->file_size(ec));
  }
  return bytes;
}

}  // namespace

StatusWith<tc::ResultTable> StartupPart(tc::MongoClient& client,
                                        const VectorBenchSettings& settings) {
  tc::ResultTable table;
  table.benchmark = "vector_startup";
  table.title = "start-up with a search index: from its snapshot vs rebuilding it";
  table.parameters = {{"vectors", static_cast<std::int64_t>(settings.vectors)},
                      {"dimensions", static_cast<std::int64_t>(settings.dimensions)}};
  table.columns = {{"start-up", "startup"},
                   {"snapshot MB", "snapshot_mb", 1},
                   {"seconds to listen", "listen_seconds", 3},
                   {"seconds to READY", "ready_seconds", 3},
                   {"vs rebuild", "ratio_to_rebuild", 2}};
  if (settings.server_pid <= 0) {
    table.notes.push_back(
        "not measured: pass --server-pid of a server on this machine (run.sh does)");
    return table;
  }
  QUARRY_ASSIGN_OR_RETURN(ServerCommand command, CommandOf(settings.server_pid));
  const VectorIndexSpec spec = IndexSpecOf(settings);
  QUARRY_RETURN_IF_ERROR(CreateVectorIndex(client, settings.db, settings.collection, spec));
  QUARRY_RETURN_IF_ERROR(
      WaitUntilReady(client, settings.db, settings.collection, spec.name, settings.ready_timeout));

  QUARRY_RETURN_IF_ERROR(StopServer(settings.server_pid));
  const std::string snapshots = command.dbpath + "/search_indexes";
  const std::int64_t snapshot_bytes = BytesUnder(snapshots);
  if (snapshot_bytes == 0) {
    return Status(ErrorCode::kOperationFailed,
                  "the clean shutdown wrote no snapshot in " + snapshots);
  }
  std::unique_ptr<StartedServer> server;
  QUARRY_ASSIGN_OR_RETURN(StartTimes from_snapshot, TimedStart(command, settings, &server));
  server.reset();  // a clean shutdown again, which writes the snapshot again
  std::error_code ec;
  std::filesystem::remove_all(snapshots, ec);
  if (ec) {
    return Status(ErrorCode::kOperationFailed, "cannot remove the snapshots: " + ec.message());
  }
  QUARRY_ASSIGN_OR_RETURN(StartTimes rebuilt, TimedStart(command, settings, &server));
  server.reset();

  table.rows.push_back({std::string("from the snapshot written at shutdown"),
                        static_cast<double>(snapshot_bytes) / 1e6, from_snapshot.listening,
                        from_snapshot.ready, from_snapshot.ready / rebuilt.ready});
  table.rows.push_back({std::string("rebuilding from the collection (snapshots removed)"),
                        tc::Cell(), rebuilt.listening, rebuilt.ready, 1.0});
  table.notes.push_back(
      "each from the start of the process: the server measured until now is stopped (SIGTERM, "
      "a clean shutdown writes the snapshot), started again from its own command line, and "
      "stopped once its index is READY; this part stops the server it started last.");
  return table;
}

}  // namespace quarry::bench
