#include "main/options.h"

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "main/config_file.h"
#include "net/tls_options.h"
#include "storage/engine.h"
#include "wire/limits.h"

namespace quarry::main {
namespace {

constexpr const char* kVersionText = "quarryd 0.1.0 (MongoDB wire protocol 7.0, maxWireVersion 21)";

StatusWith<bool> ParseBool(const std::string& name, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return Status(ErrorCode::kBadValue,
                "setParameter " + name + " must be true or false, not '" + value + "'");
}

StatusWith<std::int64_t> ParseWholeNumber(const std::string& name, const std::string& value,
                                          std::int64_t min, std::string_view unit) {
  try {
    std::size_t used = 0;
    const long long number = std::stoll(value, &used);
    if (used == value.size() && number >= min) return static_cast<std::int64_t>(number);
  } catch (const std::exception&) {
  }
  return Status(ErrorCode::kBadValue, "setParameter " + name + " must be a whole number of " +
                                          std::string(unit) + " >= " + std::to_string(min) +
                                          ", not '" + value + "'");
}

// The smallest incoming-message budget: one message of the largest size must fit.
constexpr std::int64_t kMinIncomingMessageMemoryMB =
    static_cast<std::int64_t>((wire::kMaxMessageSizeBytes >> 20) + 1);

// Polling longer than this only burns the CPU: a sleeping thread wakes well within it.
constexpr std::int64_t kMaxIoThreadPollMicros = 10000;

// One server parameter, as mongod's --setParameter name=value or the config file's
// setParameter map gives it. Only the parameters Quarry has are accepted: any other is an error
// rather than a setting silently ignored.
Status ApplyParameter(const std::string& name, const std::string& value, Options* options) {
  if (name == "incomingMessageTimeoutMillis") {
    QUARRY_ASSIGN_OR_RETURN(options->incoming_message_timeout_ms,
                            ParseWholeNumber(name, value, 1, "milliseconds"));
    return Status::OK();
  }
  if (name == "incomingMessageMemoryLimitMB") {
    QUARRY_ASSIGN_OR_RETURN(
        options->incoming_message_memory_limit_mb,
        ParseWholeNumber(name, value, kMinIncomingMessageMemoryMB, "megabytes (one message)"));
    return Status::OK();
  }
  if (name == "shutdownTimeoutMillisForSignaledShutdown") {
    QUARRY_ASSIGN_OR_RETURN(options->shutdown_timeout_ms,
                            ParseWholeNumber(name, value, 0, "milliseconds"));
    return Status::OK();
  }
  if (name == "ioThreadPollMicros") {
    QUARRY_ASSIGN_OR_RETURN(options->io_thread_poll_micros,
                            ParseWholeNumber(name, value, 0, "microseconds"));
    if (options->io_thread_poll_micros > kMaxIoThreadPollMicros) {
      return Status(ErrorCode::kBadValue, "setParameter " + name + " must be at most " +
                                              std::to_string(kMaxIoThreadPollMicros) +
                                              " microseconds, not '" + value + "'");
    }
    return Status::OK();
  }
  if (name == "ttlMonitorSleepSecs") {
    QUARRY_ASSIGN_OR_RETURN(options->ttl_monitor_sleep_secs,
                            ParseWholeNumber(name, value, 1, "seconds"));
    return Status::OK();
  }
  if (name == "ttlMonitorEnabled") {
    QUARRY_ASSIGN_OR_RETURN(options->ttl_monitor_enabled, ParseBool(name, value));
    return Status::OK();
  }
  if (name == "internalQueryMaxBlockingSortMemoryUsageBytes") {
    QUARRY_ASSIGN_OR_RETURN(long long bytes, ParseWholeNumber(name, value, 1, "bytes"));
    options->max_blocking_sort_bytes = static_cast<std::size_t>(bytes);
    return Status::OK();
  }
  if (name == "internalDocumentSourceGroupMaxMemoryBytes") {
    QUARRY_ASSIGN_OR_RETURN(long long bytes, ParseWholeNumber(name, value, 1, "bytes"));
    options->max_group_bytes = static_cast<std::size_t>(bytes);
    return Status::OK();
  }
  if (name == "minSnapshotHistoryWindowInSeconds") {
    QUARRY_ASSIGN_OR_RETURN(options->snapshot_history_seconds,
                            ParseWholeNumber(name, value, 0, "seconds"));
    return Status::OK();
  }
  if (name == "rocksdbLogLevel") {
    const auto& levels = storage::kRocksdbLogLevels;
    if (std::find(levels.begin(), levels.end(), value) == levels.end()) {
      std::string known;
      for (std::size_t i = 0; i < levels.size(); ++i) {
        known += std::string(i == 0                   ? ""
                             : i + 1 == levels.size() ? " or "
                                                      : ", ") +
                 std::string(levels[i]);
      }
      return Status(ErrorCode::kBadValue,
                    "setParameter " + name + " must be " + known + ", not '" + value + "'");
    }
    options->rocksdb_log_level = value;
    return Status::OK();
  }
  return Status(ErrorCode::kNoSuchKey,
                "unknown setParameter '" + name +
                    "' (Quarry has ttlMonitorSleepSecs, ttlMonitorEnabled, "
                    "internalQueryMaxBlockingSortMemoryUsageBytes, "
                    "internalDocumentSourceGroupMaxMemoryBytes, incomingMessageTimeoutMillis, "
                    "incomingMessageMemoryLimitMB, shutdownTimeoutMillisForSignaledShutdown, "
                    "minSnapshotHistoryWindowInSeconds, ioThreadPollMicros and rocksdbLogLevel)");
}

Status ApplyParameterFlag(const std::string& flag, Options* options) {
  const std::size_t equals = flag.find('=');
  if (equals == std::string::npos) {
    return Status(ErrorCode::kBadValue, "--setParameter takes name=value, not '" + flag + "'");
  }
  return ApplyParameter(flag.substr(0, equals), flag.substr(equals + 1), options);
}

// Applies the YAML file's values to `options` for every key the command line did not set.
Status ApplyConfigFile(const std::string& path, const CLI::App& app, Options* options) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return Status(ErrorCode::kBadValue, "cannot read config file " + path + ": " + e.what());
  }
  ConfigFile file(root, path);
  // The key's value, unless the command line set `flag` (which wins) or the file has none.
  auto take = [&](std::string_view key, const char* flag) {
    YAML::Node value = file.Read(key);
    return value && app.count(flag) == 0 ? value : YAML::Node(YAML::NodeType::Undefined);
  };
  try {
    if (YAML::Node v = take("net.port", "--port")) options->port = v.as<int>();
    if (YAML::Node v = take("net.bindIp", "--bind_ip")) options->bind_ip = v.as<std::string>();
    if (YAML::Node v = take("net.http.port", "--httpPort")) options->http_port = v.as<int>();
    if (YAML::Node v = take("net.http.bindIp", "--httpBindIp")) {
      options->http_bind_ip = v.as<std::string>();
    }
    if (YAML::Node v = take("net.compression.compressors", "--networkMessageCompressors")) {
      options->compressors = v.as<std::string>();
    }
    if (YAML::Node v = take("net.maxIncomingConnections", "--maxConns")) {
      options->max_conns = v.as<std::int64_t>();
    }
    if (YAML::Node v = take("net.tls.mode", "--tlsMode")) options->tls_mode = v.as<std::string>();
    if (YAML::Node v = take("net.tls.certificateKeyFile", "--tlsCertificateKeyFile")) {
      options->tls_certificate_key_file = v.as<std::string>();
    }
    if (YAML::Node v = take("net.tls.CAFile", "--tlsCAFile")) {
      options->tls_ca_file = v.as<std::string>();
    }
    if (YAML::Node v = take("net.tls.allowConnectionsWithoutCertificates",
                            "--tlsAllowConnectionsWithoutCertificates")) {
      options->tls_allow_connections_without_certificates = v.as<bool>();
    }
    if (YAML::Node v = take("net.tls.disabledProtocols", "--tlsDisabledProtocols")) {
      options->tls_disabled_protocols = v.as<std::string>();
    }
    if (YAML::Node v = take("storage.dbPath", "--dbpath")) options->dbpath = v.as<std::string>();
    if (YAML::Node v =
            take("storage.wiredTiger.engineConfig.cacheSizeGB", "--wiredTigerCacheSizeGB")) {
      options->cache_size_gb = v.as<double>();
    }
    if (YAML::Node v = take("replication.replSetName", "--replSet")) {
      options->repl_set = v.as<std::string>();
    }
    if (YAML::Node v = take("replication.oplogSizeMB", "--oplogSizeMB")) {
      options->oplog_size_mb = v.as<std::int64_t>();
    }
    if (YAML::Node v = take("security.authorization", "--auth")) {
      const std::string value = v.as<std::string>();
      if (value != "enabled" && value != "disabled") {
        return Status(ErrorCode::kBadValue,
                      "security.authorization must be enabled or disabled, not '" + value + "'");
      }
      options->auth = value == "enabled";
    }
    // Each parameter is checked by name as it is applied.
    if (YAML::Node parameters = file.Read("setParameter")) {
      for (const auto& parameter : parameters) {
        const std::string name = parameter.first.as<std::string>();
        Status applied = ApplyParameter(name, parameter.second.as<std::string>(), options);
        if (!applied.ok()) return applied;
      }
    }
    if (YAML::Node v = take("systemLog.path", "--logpath")) options->logpath = v.as<std::string>();
    if (YAML::Node v = take("systemLog.quiet", "--quiet")) options->quiet = v.as<bool>();
    if (YAML::Node v = take("systemLog.logAppend", "--logappend")) {
      options->log_append = v.as<bool>();
    }
    QUARRY_RETURN_IF_ERROR(file.CheckEveryKeyRead());
  } catch (const YAML::Exception& e) {
    return Status(ErrorCode::kBadValue, "bad value in config file " + path + ": " + e.what());
  }
  return Status::OK();
}

}  // namespace

StatusWith<net::TlsOptions> TlsSettings(const Options& options) {
  net::TlsOptions tls;
  QUARRY_ASSIGN_OR_RETURN(tls.mode, net::ParseTlsMode(options.tls_mode));
  tls.certificate_key_file = options.tls_certificate_key_file;
  tls.ca_file = options.tls_ca_file;
  tls.allow_connections_without_certificates = options.tls_allow_connections_without_certificates;
  if (!options.tls_disabled_protocols.empty()) {
    QUARRY_ASSIGN_OR_RETURN(tls.disabled,
                            net::ParseTlsDisabledProtocols(options.tls_disabled_protocols));
  }
  QUARRY_RETURN_IF_ERROR(net::CheckTlsOptions(tls));
  return tls;
}

StatusWith<std::vector<std::string>> CompressorList(const std::string& spec) {
  std::vector<std::string> names;
  if (spec.empty() || spec == "disabled") return names;
  std::stringstream stream(spec);
  std::string name;
  while (std::getline(stream, name, ',')) {
    if (name.empty()) continue;
    if (name != "snappy" && name != "zlib" && name != "zstd") {
      return Status(ErrorCode::kBadValue, "unknown network compressor '" + name +
                                              "' (choose from snappy, zlib, zstd, or disabled)");
    }
    names.push_back(name);
  }
  return names;
}

ParseOutcome ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 0; i < argc; ++i) options->argv.emplace_back(argv[i]);
  CLI::App app{"quarryd: a document database server that speaks MongoDB's wire protocol"};
  app.add_option("--port", options->port, "TCP port to listen on")->capture_default_str();
  app.add_option("--bind_ip", options->bind_ip,
                 "comma-separated addresses to listen on; localhost = 127.0.0.1 and ::1")
      ->capture_default_str();
  app.add_option("--httpPort", options->http_port,
                 "serve /metrics and /healthz over HTTP on this port (default: off)");
  app.add_option("--httpBindIp", options->http_bind_ip,
                 "comma-separated addresses for the HTTP port")
      ->capture_default_str();
  app.add_option("--dbpath", options->dbpath, "directory for the data files")
      ->capture_default_str();
  app.add_option("-f,--config", options->config_path, "YAML configuration file (mongod.conf keys)");
  app.add_option("--replSet", options->repl_set,
                 "replica set name to present to drivers (empty: standalone)")
      ->capture_default_str();
  app.add_option("--advertise-host", options->advertise_host,
                 "host[:port] that hello lists in hosts/me (default localhost:<port>)");
  app.add_option("--networkMessageCompressors", options->compressors,
                 "enabled wire compressors, comma-separated, or 'disabled'")
      ->capture_default_str();
  app.add_option("--logpath", options->logpath, "log file (default: standard error)");
  app.add_flag("--logappend", options->log_append,
               "append to the log file instead of replacing it");
  app.add_flag("--quiet", options->quiet, "less connection chatter in the log");
  app.add_flag("--auth", options->auth,
               "require clients to authenticate (SCRAM-SHA-256 / SCRAM-SHA-1) and check their "
               "privileges");
  app.add_flag("--enableTestCommands", options->enable_test_commands,
               "enable test-only commands (configureFailPoint)");
  app.add_option("--oplogSizeMB", options->oplog_size_mb,
                 "oplog window kept for change streams, in MB (0: unlimited)")
      ->capture_default_str();
  app.add_option("--oplogRetentionHours", options->oplog_retention_hours,
                 "also drop oplog entries older than this many hours (0: no age limit)")
      ->capture_default_str();
  app.add_option("--wiredTigerCacheSizeGB", options->cache_size_gb,
                 "GB of uncompressed data kept in memory (0.25-10000; default: half of the "
                 "memory less 1 GB, at least 0.25)");
  app.add_option("--maxConns", options->max_conns,
                 "most simultaneous client connections (default: 80% of the descriptor limit, "
                 "less what storage needs, at most 1000000)");
  app.add_option("--tlsMode", options->tls_mode,
                 "disabled, allowTLS, preferTLS (both accept TLS and plain clients) or requireTLS")
      ->capture_default_str();
  app.add_option("--tlsCertificateKeyFile", options->tls_certificate_key_file,
                 "PEM file with the server's certificate and private key");
  app.add_option("--tlsCAFile", options->tls_ca_file,
                 "PEM file of CA certificates: clients must present a certificate it verifies");
  app.add_flag("--tlsAllowConnectionsWithoutCertificates",
               options->tls_allow_connections_without_certificates,
               "with --tlsCAFile, still accept clients that present no certificate");
  app.add_option("--tlsDisabledProtocols", options->tls_disabled_protocols,
                 "TLS versions to refuse: comma-separated TLS1_0,TLS1_1,TLS1_2,TLS1_3, or none "
                 "(default TLS1_0)");
  std::vector<std::string> parameters;
  app.add_option("--setParameter", parameters,
                 "name=value of a server parameter: ttlMonitorSleepSecs, ttlMonitorEnabled, "
                 "internalQueryMaxBlockingSortMemoryUsageBytes, "
                 "internalDocumentSourceGroupMaxMemoryBytes, incomingMessageTimeoutMillis, "
                 "incomingMessageMemoryLimitMB, ioThreadPollMicros");
  bool show_version = false;
  app.add_flag("--version", show_version, "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return ParseOutcome::kExitSuccess;
  } catch (const CLI::ParseError& e) {
    std::cerr << "quarryd: " << e.what() << "\n(try --help)\n";
    return ParseOutcome::kExitFailure;
  }
  if (show_version) {
    std::cout << kVersionText << "\n";
    return ParseOutcome::kExitSuccess;
  }
  if (!options->config_path.empty()) {
    Status status = ApplyConfigFile(options->config_path, app, options);
    if (!status.ok()) {
      std::cerr << "quarryd: " << status.reason() << "\n";
      return ParseOutcome::kExitFailure;
    }
  }
  // After the file: the command line's parameters win.
  for (const std::string& flag : parameters) {
    Status applied = ApplyParameterFlag(flag, options);
    if (!applied.ok()) {
      std::cerr << "quarryd: " << applied.reason() << "\n";
      return ParseOutcome::kExitFailure;
    }
  }
  if (options->oplog_size_mb < 0 || options->oplog_retention_hours < 0) {
    std::cerr << "quarryd: --oplogSizeMB and --oplogRetentionHours must not be negative\n";
    return ParseOutcome::kExitFailure;
  }
  if (options->port <= 0 || options->port > 65535) {
    std::cerr << "quarryd: --port must be between 1 and 65535\n";
    return ParseOutcome::kExitFailure;
  }
  if (options->http_port < 0 || options->http_port > 65535 ||
      (options->http_port != 0 && options->http_port == options->port)) {
    std::cerr << "quarryd: --httpPort must be between 1 and 65535 and differ from --port\n";
    return ParseOutcome::kExitFailure;
  }
  if (options->cache_size_gb != 0 &&
      (options->cache_size_gb < 0.25 || options->cache_size_gb > 10000)) {
    std::cerr << "quarryd: --wiredTigerCacheSizeGB must be between 0.25 and 10000\n";
    return ParseOutcome::kExitFailure;
  }
  if (options->max_conns < 0) {
    std::cerr << "quarryd: --maxConns must not be negative\n";
    return ParseOutcome::kExitFailure;
  }
  StatusWith<net::TlsOptions> tls = TlsSettings(*options);
  if (!tls.ok()) {
    std::cerr << "quarryd: " << tls.status().reason() << "\n";
    return ParseOutcome::kExitFailure;
  }
  StatusWith<std::vector<std::string>> compressors = CompressorList(options->compressors);
  if (!compressors.ok()) {
    std::cerr << "quarryd: " << compressors.status().reason() << "\n";
    return ParseOutcome::kExitFailure;
  }
  return ParseOutcome::kRun;
}

}  // namespace quarry::main
