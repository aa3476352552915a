// DuplicateKey errors, with mongod's wording so that applications that parse E11000 messages
// keep working.
#include "storage/duplicate_key.h"

#include <cmath>
#include <cstdio>

#include "bson/builder.h"

namespace quarry::storage {
namespace {

void AppendHex(std::string_view bytes, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 0xF]);
  }
}

void AppendFormatted(bson::ValueView value, std::string* out);

void AppendDocument(bson::DocumentView doc, bool is_array, std::string* out) {
  if (doc.empty()) {
    out->append(is_array ? "[]" : "{}");
    return;
  }
  out->append(is_array ? "[ " : "{ ");
  bool first = true;
  for (const bson::Element& element : doc) {
    if (!first) out->append(", ");
    first = false;
    if (!is_array) {
      out->append(element.key);
      out->append(": ");
    }
    AppendFormatted(element.value, out);
  }
  out->append(is_array ? " ]" : " }");
}

void AppendFormatted(bson::ValueView value, std::string* out) {
  switch (value.type()) {
    case bson::Type::kEod:
      return;
    case bson::Type::kDouble: {
      double d = value.Double();
      char buf[64];
      if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 1e16) {
        std::snprintf(buf, sizeof(buf), "%.1f", d);
      } else {
        std::snprintf(buf, sizeof(buf), "%.17g", d);
      }
      out->append(buf);
      return;
    }
    case bson::Type::kString:
    case bson::Type::kSymbol:
      out->push_back('"');
      out->append(value.String());
      out->push_back('"');
      return;
    case bson::Type::kDocument:
      AppendDocument(value.Document(), false, out);
      return;
    case bson::Type::kArray:
      AppendDocument(value.Document(), true, out);
      return;
    case bson::Type::kBinary: {
      bson::BinaryView binary = value.Binary();
      out->append("BinData(" + std::to_string(binary.subtype) + ", ");
      AppendHex(binary.data, out);
      out->push_back(')');
      return;
    }
    case bson::Type::kUndefined:
      out->append("undefined");
      return;
    case bson::Type::kObjectId:
      out->append("ObjectId('" + value.Oid().ToHex() + "')");
      return;
    case bson::Type::kBool:
      out->append(value.Bool() ? "true" : "false");
      return;
    case bson::Type::kDate:
      out->append("new Date(" + std::to_string(value.Date()) + ")");
      return;
    case bson::Type::kNull:
      out->append("null");
      return;
    case bson::Type::kRegex: {
      bson::RegexView regex = value.Regex();
      out->push_back('/');
      out->append(regex.pattern);
      out->push_back('/');
      out->append(regex.options);
      return;
    }
    case bson::Type::kInt32:
      out->append(std::to_string(value.Int32()));
      return;
    case bson::Type::kInt64:
      out->append(std::to_string(value.Int64()));
      return;
    case bson::Type::kTimestamp: {
      std::uint64_t ts = value.Timestamp();
      out->append("Timestamp(" + std::to_string(ts >> 32) + ", " +
                  std::to_string(ts & 0xFFFFFFFFu) + ")");
      return;
    }
    case bson::Type::kMinKey:
      out->append("MinKey");
      return;
    case bson::Type::kMaxKey:
      out->append("MaxKey");
      return;
    case bson::Type::kDecimal128:
    case bson::Type::kDbPointer:
    case bson::Type::kCode:
    case bson::Type::kCodeWithScope:
      out->append(value.ToJson());
      return;
  }
}

}  // namespace

std::string FormatForMessage(bson::ValueView value) {
  std::string out;
  AppendFormatted(value, &out);
  return out;
}

Status DuplicateKeyError(std::string_view ns, std::string_view index_name,
                         bson::DocumentView key_pattern, bson::DocumentView key_value) {
  std::string message = "E11000 duplicate key error collection: ";
  message.append(ns);
  message.append(" index: ");
  message.append(index_name);
  message.append(" dup key: ");
  AppendDocument(key_value, false, &message);
  bson::DocumentBuilder extra;
  extra.AppendDocument("keyPattern", key_pattern);
  extra.AppendDocument("keyValue", key_value);
  return Status(ErrorCode::kDuplicateKey, std::move(message))
      .WithExtraInfo(std::move(extra).FinishBytes());
}

Status DuplicateIdError(std::string_view ns, bson::ValueView id) {
  bson::DocumentBuilder pattern;
  pattern.AppendInt32("_id", 1);
  bson::DocumentBuilder key_value;
  key_value.Append("_id", id);
  bson::Document pattern_doc = std::move(pattern).Finish();
  bson::Document value_doc = std::move(key_value).Finish();
  return DuplicateKeyError(ns, "_id_", pattern_doc, value_doc);
}

}  // namespace quarry::storage
