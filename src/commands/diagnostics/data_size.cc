// dataSize: the bytes and the number of a collection's documents, named by its full namespace,
// as mongod counts them: exact from the stored counters, or, with maxSize or maxObjects, by
// reading the documents in their order until a limit is passed. A key range (min and max) is
// not supported.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bson/builder.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

struct Limits {
  std::int64_t max_size = 0;  // 0: none; a negative one stops at the first document
  std::int64_t max_objects = 0;
};

// What `count` documents of `bytes` came to, reading them one by one until a limit is passed
// (mongod counts the one that passes it, and says so with maxReached).
struct Tally {
  std::int64_t size = 0;
  std::int64_t objects = 0;
  bool max_reached = false;
};

StatusWith<Tally> TallyUpTo(const storage::RecordStore& records, storage::CollectionId collection,
                            const Limits& limits, bool estimate, std::int64_t average) {
  Tally tally;
  std::unique_ptr<storage::RecordCursor> cursor = records.Scan(collection);
  for (; cursor->Valid(); cursor->Next()) {
    tally.size += estimate ? average : static_cast<std::int64_t>(cursor->document().size());
    ++tally.objects;
    if ((limits.max_size != 0 && tally.size > limits.max_size) ||
        (limits.max_objects != 0 && tally.objects > limits.max_objects)) {
      tally.max_reached = true;
      break;
    }
  }
  QUARRY_RETURN_IF_ERROR(cursor->status());
  return tally;
}

// The fully qualified namespace the command names ("db.coll"), split; nullopt when it is not one.
std::optional<std::pair<std::string_view, std::string_view>> NamedCollection(
    const Request& request) {
  const bson::ValueView ns = request.body.begin()->value;
  if (ns.type() != bson::Type::kString) return std::nullopt;
  const std::string_view text = ns.String();
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
  return std::make_pair(text.substr(0, dot), text.substr(dot + 1));
}

// find on the collection the namespace names, whatever database the command was sent to.
bool AuthorizeDataSize(const Authorizer& authorizer, const Request& request) {
  const auto named = NamedCollection(request);
  return named.has_value() &&
         authorizer.AllowsOn(named->first, named->second, {auth::ActionType::kFind});
}

StatusWith<bson::Document> RunDataSize(CommandContext& ctx, const Request& request) {
  const auto started = std::chrono::steady_clock::now();
  const bool has_min = request.Field("min").exists();
  if (has_min != request.Field("max").exists()) {
    return Status(ErrorCode::kBadValue,
                  has_min ? "max must be set if min is set" : "min must be set if max is set");
  }
  if (has_min) {
    return Status(ErrorCode::kNotImplemented,
                  "dataSize over a key range (min and max) is not supported by Quarry");
  }
  const bson::ValueView ns = request.body.begin()->value;
  if (ns.type() != bson::Type::kString) {
    return Status(ErrorCode::kInvalidNamespace,
                  "collection name has invalid type " + std::string(bson::TypeAlias(ns.type())));
  }
  const auto named = NamedCollection(request);
  if (!named.has_value()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid namespace specified '" + std::string(ns.String()) + "'");
  }
  const bool estimate = request.Field("estimate").Truthy();
  const Limits limits{request.Field("maxSize").AsInt64(), request.Field("maxObjects").AsInt64()};
  auto millis = [&] {
    return static_cast<std::int32_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - started)
                                         .count());
  };
  bson::DocumentBuilder reply;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, named->first, named->second));
  const storage::CollectionStats stats = collection.has_value()
                                             ? ctx.engine().records().Stats(collection->id)
                                             : storage::CollectionStats{};
  if (stats.count == 0) {
    reply.AppendNumber("size", 0).AppendNumber("numObjects", 0).AppendInt32("millis", millis());
    return std::move(reply).Finish();
  }
  reply.AppendBool("estimate", estimate);
  Tally tally{stats.data_bytes, stats.count, false};
  const bool may_reach = (limits.max_size != 0 && stats.data_bytes > limits.max_size) ||
                         (limits.max_objects != 0 && stats.count > limits.max_objects);
  if (may_reach) {
    QUARRY_ASSIGN_OR_RETURN(tally, TallyUpTo(ctx.engine().records(), collection->id, limits,
                                             estimate, stats.data_bytes / stats.count));
  }
  if (tally.max_reached) reply.AppendBool("maxReached", true);
  reply.AppendNumber("size", tally.size)
      .AppendNumber("numObjects", tally.objects)
      .AppendInt32("millis", millis());
  return std::move(reply).Finish();
}

}  // namespace

void RegisterDataSizeCommand(CommandRegistry& registry) {
  registry.Add({.name = "dataSize", .run = RunDataSize, .auth = Custom(AuthorizeDataSize)});
}

}  // namespace quarry::commands
