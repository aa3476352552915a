// RequestParser: typed reads of command fields with mongod's error shapes.
#include "commands/request_parser.h"

#include <algorithm>
#include <array>

namespace quarry::commands {
namespace {

constexpr std::array<std::string_view, 26> kGenericArguments = {"$db",
                                                                "lsid",
                                                                "txnNumber",
                                                                "autocommit",
                                                                "startTransaction",
                                                                "$clusterTime",
                                                                "$readPreference",
                                                                "readConcern",
                                                                "writeConcern",
                                                                "maxTimeMS",
                                                                "comment",
                                                                "apiVersion",
                                                                "apiStrict",
                                                                "apiDeprecationErrors",
                                                                "$audit",
                                                                "$client",
                                                                "$configServerState",
                                                                "$gleStats",
                                                                "clientOperationKey",
                                                                "mayBypassWriteBlocking",
                                                                "$queryOptions",
                                                                "readPreference",
                                                                "$configTime",
                                                                "$topologyTime",
                                                                "databaseVersion",
                                                                "shardVersion"};

bool IsAbsent(bson::ValueView v) { return !v.exists() || v.type() == bson::Type::kNull; }

}  // namespace

bool IsGenericArgument(std::string_view key) {
  return std::find(kGenericArguments.begin(), kGenericArguments.end(), key) !=
         kGenericArguments.end();
}

RequestParser::RequestParser(const Request& request) : request_(request) {
  if (request.fields != nullptr) {
    table_ = request.fields;
  } else {
    table_ = &walked_.emplace(request.body);
  }
  fields_ = table_->elements();
  if (!fields_.empty()) found_ = 1;  // the command's own field
}

Status RequestParser::WrongType(std::string_view key, bson::ValueView value,
                                std::string_view expected) const {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(request_.name) + "." +
                                              std::string(key) + "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(expected) + "'");
}

StatusWith<std::string> RequestParser::CollectionName() {
  bson::ValueView v = fields_.empty() ? bson::ValueView() : fields_.front().value;
  if (v.type() != bson::Type::kString) {
    return Status(ErrorCode::kInvalidNamespace,
                  "collection name has invalid type " + std::string(bson::TypeAlias(v.type())));
  }
  std::string name(v.String());
  if (name.empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid namespace specified '" + request_.db + ".'");
  }
  return name;
}

// Notes the request's own copy of the key (a field's or a sequence's), never `key`, which
// may be a caller's temporary.
bson::ValueView RequestParser::Raw(std::string_view key) {
  for (const DocumentSequenceView& seq : request_.sequences) {
    if (seq.identifier == key) known_.push_back(seq.identifier);
  }
  const bson::Element* field = table_->Find(key);
  if (field == nullptr) return bson::ValueView();
  const auto index = static_cast<std::size_t>(field - fields_.data());
  if (index < 64) {
    found_ |= std::uint64_t{1} << index;
  } else {
    known_.push_back(field->key);
  }
  return field->value;
}

bool RequestParser::Known(std::string_view key) const {
  // A repeat of a field an accessor found counts as known, as the first one does.
  for (std::size_t i = 0; i < fields_.size() && i < 64; ++i) {
    if ((found_ >> i & 1) != 0 && fields_[i].key == key) return true;
  }
  return std::find(known_.begin(), known_.end(), key) != known_.end();
}

void RequestParser::Ignore(std::initializer_list<std::string_view> keys) {
  known_.insert(known_.end(), keys.begin(), keys.end());
}

StatusWith<bson::DocumentView> RequestParser::OptionalDocument(std::string_view key) {
  bson::ValueView v = Raw(key);
  if (IsAbsent(v)) return bson::DocumentView();
  if (v.type() != bson::Type::kDocument) return WrongType(key, v, "object");
  return v.Document();
}

StatusWith<std::optional<bson::DocumentView>> RequestParser::MaybeDocument(std::string_view key) {
  bson::ValueView v = Raw(key);
  if (IsAbsent(v)) return std::optional<bson::DocumentView>();
  if (v.type() != bson::Type::kDocument) return WrongType(key, v, "object");
  return std::optional<bson::DocumentView>(v.Document());
}

StatusWith<bson::DocumentView> RequestParser::RequiredDocument(std::string_view key) {
  bson::ValueView v = Raw(key);
  if (!v.exists()) {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(request_.name) + "." +
                                                 std::string(key) +
                                                 "' is missing but a required field");
  }
  if (v.type() != bson::Type::kDocument) return WrongType(key, v, "object");
  return v.Document();
}

StatusWith<bool> RequestParser::OptionalBool(std::string_view key, bool default_value) {
  bson::ValueView v = Raw(key);
  if (IsAbsent(v)) return default_value;
  if (v.type() == bson::Type::kBool) return v.Bool();
  if (v.IsNumber()) return v.AsDouble() != 0.0;
  return WrongType(key, v, "bool");
}

StatusWith<std::int64_t> RequestParser::OptionalInt(std::string_view key,
                                                    std::int64_t default_value) {
  bson::ValueView v = Raw(key);
  if (IsAbsent(v)) return default_value;
  if (!v.IsNumber()) return WrongType(key, v, "long");
  if (!v.IsIntegral()) {
    return Status(ErrorCode::kBadValue, "BSON field '" + std::string(request_.name) + "." +
                                            std::string(key) + "' must be a whole number");
  }
  return v.AsInt64();
}

StatusWith<std::int64_t> RequestParser::OptionalNonNegative(std::string_view key,
                                                            std::int64_t default_value) {
  QUARRY_ASSIGN_OR_RETURN(std::int64_t n, OptionalInt(key, default_value));
  if (n < 0) {
    return Status(ErrorCode::kBadValue, "BSON field '" + std::string(key) +
                                            "' value must be >= 0, actual value '" +
                                            std::to_string(n) + "'");
  }
  return n;
}

StatusWith<std::string> RequestParser::OptionalString(std::string_view key,
                                                      std::string_view default_value) {
  bson::ValueView v = Raw(key);
  if (IsAbsent(v)) return std::string(default_value);
  if (v.type() != bson::Type::kString) return WrongType(key, v, "string");
  return std::string(v.String());
}

StatusWith<std::string> RequestParser::RequiredString(std::string_view key) {
  bson::ValueView v = Raw(key);
  if (!v.exists()) {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(request_.name) + "." +
                                                 std::string(key) +
                                                 "' is missing but a required field");
  }
  if (v.type() != bson::Type::kString) return WrongType(key, v, "string");
  return std::string(v.String());
}

Status RequestParser::Finish() const {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i < 64 && (found_ >> i & 1) != 0) continue;
    const bson::Element& e = fields_[i];
    if (IsGenericArgument(e.key) || Known(e.key)) continue;
    return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(request_.name) + "." +
                                                 std::string(e.key) + "' is an unknown field.");
  }
  for (const DocumentSequenceView& seq : request_.sequences) {
    if (std::find(known_.begin(), known_.end(), seq.identifier) == known_.end()) {
      return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(request_.name) + "." +
                                                   std::string(seq.identifier) +
                                                   "' is an unknown field.");
    }
  }
  return Status::OK();
}

}  // namespace quarry::commands
