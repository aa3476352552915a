// MongoClient over libmongoc.
#include "tools/client/mongo_client.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "base/allocator.h"

namespace quarry::tools::client {
namespace {

// The driver logs warnings (and worse) to stderr by default; the tool reports each failure
// once, from the bson_error_t, so the driver's own log lines would only repeat it.
void DropDriverLog(mongoc_log_level_t, const char*, const char*, void*) {}

// The driver maps its counters to /dev/shm/mongoc-<pid> as the library loads, before main, and
// removes that file only at a clean exit. A file left behind (by a killed tool, or by this
// process before it started itself again) makes the next process with that pid warn on stderr.
// Unlinking it keeps the mapping and leaves nothing behind.
void UnlinkDriverCounters() { shm_unlink(("/mongoc-" + std::to_string(getpid())).c_str()); }

void InitDriverOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    UnlinkDriverCounters();
    mongoc_log_set_handler(DropDriverLog, nullptr);
    mongoc_init();
  });
}

struct UriDeleter {
  void operator()(mongoc_uri_t* uri) const { mongoc_uri_destroy(uri); }
};

std::int64_t Int64Field(const bson_t& doc, const char* dotted_path, bool* found) {
  bson_iter_t iter;
  bson_iter_t field;
  if (bson_iter_init(&iter, &doc) && bson_iter_find_descendant(&iter, dotted_path, &field) &&
      BSON_ITER_HOLDS_NUMBER(&field)) {
    return bson_iter_as_int64(&field);
  }
  *found = false;
  return 0;
}

// The compressors listed in a handshake reply ("compression" array).
std::vector<std::string> AcceptedCompressors(const bson_t* hello) {
  std::vector<std::string> names;
  bson_iter_t iter;
  bson_iter_t array;
  if (hello != nullptr && bson_iter_init_find(&iter, hello, "compression") &&
      BSON_ITER_HOLDS_ARRAY(&iter) && bson_iter_recurse(&iter, &array)) {
    while (bson_iter_next(&array)) {
      if (BSON_ITER_HOLDS_UTF8(&array)) names.emplace_back(bson_iter_utf8(&array, nullptr));
    }
  }
  return names;
}

}  // namespace

const std::vector<std::string>& KnownCompressors() {
  static const std::vector<std::string> names = {"none", "snappy", "zlib", "zstd"};
  return names;
}

bool IsKnownCompressor(std::string_view name) {
  const auto& names = KnownCompressors();
  return std::find(names.begin(), names.end(), name) != names.end();
}

NetworkCounters NetworkCounters::operator-(const NetworkCounters& earlier) const {
  return {bytes_in - earlier.bytes_in, bytes_out - earlier.bytes_out,
          physical_bytes_in - earlier.physical_bytes_in,
          physical_bytes_out - earlier.physical_bytes_out, requests - earlier.requests};
}

void TuneAllocator(char** argv) {
  UnlinkDriverCounters();
  quarry::TuneAllocator(argv);
}

Status DriverError(const bson_error_t& error, std::string_view context) {
  std::string message = std::string(context) + ": " + error.message;
  switch (error.domain) {
    case MONGOC_ERROR_SERVER:
    case MONGOC_ERROR_WRITE_CONCERN:
      return Status(static_cast<ErrorCode>(error.code), std::move(message));
    case MONGOC_ERROR_SERVER_SELECTION:
    case MONGOC_ERROR_STREAM:
      return Status(ErrorCode::kHostUnreachable, std::move(message));
    default:
      return Status(ErrorCode::kOperationFailed, std::move(message));
  }
}

StatusWith<std::unique_ptr<MongoClient>> MongoClient::Connect(const ClientOptions& options) {
  InitDriverOnce();
  if (!IsKnownCompressor(options.compressor)) {
    return Status(ErrorCode::kBadValue, "unknown compressor '" + options.compressor +
                                            "' (choose from none, snappy, zlib, zstd)");
  }
  bson_error_t error;
  std::unique_ptr<mongoc_uri_t, UriDeleter> uri(
      mongoc_uri_new_with_error(options.uri.c_str(), &error));
  if (uri == nullptr) {
    return Status(ErrorCode::kBadValue, "invalid URI '" + options.uri + "': " + error.message);
  }
  // Fail in seconds, not the driver's 30 s, when nothing answers; a URI's own values win.
  if (mongoc_uri_get_option_as_int32(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 0) == 0) {
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 5000);
  }
  if (mongoc_uri_get_option_as_int32(uri.get(), MONGOC_URI_CONNECTTIMEOUTMS, 0) == 0) {
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_CONNECTTIMEOUTMS, 5000);
  }
  const bool compress = options.compressor != "none";
  mongoc_uri_set_compressors(uri.get(), compress ? options.compressor.c_str() : nullptr);
  if (options.zlib_level != -1) {
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_ZLIBCOMPRESSIONLEVEL, options.zlib_level);
  }

  mongoc_client_t* raw = mongoc_client_new_from_uri_with_error(uri.get(), &error);
  if (raw == nullptr) {
    return Status(ErrorCode::kBadValue, "invalid URI '" + options.uri + "': " + error.message);
  }
  std::unique_ptr<MongoClient> client(new MongoClient(raw, options.compressor));
  mongoc_client_set_error_api(raw, MONGOC_ERROR_API_VERSION_2);
  mongoc_client_set_appname(raw, options.app_name.c_str());

  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  bson_t pong;
  bool reached = mongoc_client_command_simple(raw, "admin", &ping, nullptr, &pong, &error);
  bson_destroy(&ping);
  bson_destroy(&pong);
  if (!reached) return DriverError(error, "cannot reach " + options.uri);

  if (compress) {
    mongoc_server_description_t* server =
        mongoc_client_select_server(raw, /*for_writes=*/true, nullptr, &error);
    if (server == nullptr) return DriverError(error, "cannot reach " + options.uri);
    std::vector<std::string> accepted =
        AcceptedCompressors(mongoc_server_description_hello_response(server));
    mongoc_server_description_destroy(server);
    // The handshake reply lists only compressors the client offered, so it cannot say which
    // others the server would take.
    if (std::find(accepted.begin(), accepted.end(), options.compressor) == accepted.end()) {
      return Status(ErrorCode::kBadValue, "the server at " + options.uri + " refused compressor " +
                                              options.compressor +
                                              " (it was not accepted in the handshake)");
    }
  }
  return client;
}

MongoClient::~MongoClient() { mongoc_client_destroy(client_); }

StatusWith<BsonPtr> MongoClient::RunCommand(const std::string& db, const bson_t& command) {
  bson_t reply;  // initialised by the driver, on failure too
  bson_error_t error;
  bool ok = mongoc_client_command_simple(client_, db.c_str(), &command, nullptr, &reply, &error);
  BsonPtr result(bson_copy(&reply));
  bson_destroy(&reply);
  if (!ok) return DriverError(error, "command failed");
  return result;
}

CollectionPtr MongoClient::Collection(const std::string& db, const std::string& name) {
  return CollectionPtr(mongoc_client_get_collection(client_, db.c_str(), name.c_str()));
}

StatusWith<NetworkCounters> MongoClient::ReadNetworkCounters() {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_INT32(&command, "serverStatus", 1);
  StatusWith<BsonPtr> reply = RunCommand("admin", command);
  bson_destroy(&command);
  if (!reply.ok()) return reply.status().WithContext("serverStatus");
  const bson_t& status = *reply.value();
  bool found = true;
  NetworkCounters counters;
  counters.bytes_in = Int64Field(status, "network.bytesIn", &found);
  counters.bytes_out = Int64Field(status, "network.bytesOut", &found);
  counters.requests = Int64Field(status, "network.numRequests", &found);
  counters.physical_bytes_in = Int64Field(status, "network.physicalBytesIn", &found);
  counters.physical_bytes_out = Int64Field(status, "network.physicalBytesOut", &found);
  if (!found) {
    return Status(ErrorCode::kBadValue,
                  "serverStatus has no network.physicalBytesIn/physicalBytesOut counters");
  }
  return counters;
}

}  // namespace quarry::tools::client
