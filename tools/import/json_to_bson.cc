#include "tools/import/json_to_bson.h"

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "tools/client/shell_json.h"
#include "tools/import/extended_json_values.h"

namespace quarry::tools::importing {
namespace {

namespace od = simdjson::ondemand;

Status ParseError(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}

Status JsonError(simdjson::error_code error) {
  return ParseError(std::string("invalid JSON: ") + simdjson::error_message(error));
}

#define QUARRY_JSON_GET(result, target)                                                \
  do {                                                                                 \
    if (auto json_error = std::move(result).get(target)) return JsonError(json_error); \
  } while (0)

// The keys of the Extended JSON wrappers, a bit each, so a wrapper's set of keys is one mask.
enum WrapperKey : std::uint32_t {
  kOid = 1 << 0,
  kDate = 1 << 1,
  kNumberInt = 1 << 2,
  kNumberLong = 1 << 3,
  kNumberDouble = 1 << 4,
  kNumberDecimal = 1 << 5,
  kBinary = 1 << 6,
  kType = 1 << 7,
  kUuid = 1 << 8,
  kRegularExpression = 1 << 9,
  kRegex = 1 << 10,
  kOptions = 1 << 11,
  kTimestamp = 1 << 12,
  kMinKey = 1 << 13,
  kMaxKey = 1 << 14,
  kUndefined = 1 << 15,
  kSymbol = 1 << 16,
  kCode = 1 << 17,
  kScope = 1 << 18,
  kDbPointer = 1 << 19,
};

std::uint32_t WrapperKeyOf(std::string_view key) {
  static constexpr std::pair<std::string_view, WrapperKey> kKeys[] = {
      {"$oid", kOid},
      {"$date", kDate},
      {"$numberInt", kNumberInt},
      {"$numberLong", kNumberLong},
      {"$numberDouble", kNumberDouble},
      {"$numberDecimal", kNumberDecimal},
      {"$binary", kBinary},
      {"$type", kType},
      {"$uuid", kUuid},
      {"$regularExpression", kRegularExpression},
      {"$regex", kRegex},
      {"$options", kOptions},
      {"$timestamp", kTimestamp},
      {"$minKey", kMinKey},
      {"$maxKey", kMaxKey},
      {"$undefined", kUndefined},
      {"$symbol", kSymbol},
      {"$code", kCode},
      {"$scope", kScope},
      {"$dbPointer", kDbPointer},
  };
  if (key.size() < 2 || key[0] != '$') return 0;
  for (const auto& [name, bit] : kKeys) {
    if (name == key) return bit;
  }
  return 0;
}

// What a wrapper's keys held, gathered in any key order before the value is appended.
struct WrapperParts {
  std::uint32_t keys = 0;
  std::string text;    // $oid, $numberX, $uuid, $symbol, $code, legacy $binary, $regex
  std::string second;  // legacy $type, $options, $binary.subType, $regularExpression.options
  std::int64_t millis = 0;
  std::uint32_t t = 0;
  std::uint32_t i = 0;
  bool binary_is_object = false;
  bool number_is_json_number = false;  // {"$numberLong": 5}, which older tools wrote
  std::int64_t json_number = 0;
  bson_t scope = BSON_INITIALIZER;
  bson_oid_t pointer_id{};
  std::string pointer_ns;

  WrapperParts() = default;
  WrapperParts(const WrapperParts&) = delete;
  WrapperParts& operator=(const WrapperParts&) = delete;
  ~WrapperParts() { bson_destroy(&scope); }
};

class Converter {
 public:
  Status Fields(od::object object, bson_t* out) {
    for (auto field_result : object) {
      od::field field;
      QUARRY_JSON_GET(field_result, field);
      std::string_view key;
      QUARRY_JSON_GET(field.unescaped_key(), key);
      QUARRY_RETURN_IF_ERROR(CheckKey(key));
      QUARRY_RETURN_IF_ERROR(Value(field.value(), key, out));
    }
    return Status::OK();
  }

 private:
  static Status CheckKey(std::string_view key) {
    if (key.find('\0') != std::string_view::npos) {
      return ParseError("a field name contains a NUL character, which BSON cannot store");
    }
    return Status::OK();
  }

  static Status TooLarge() { return ParseError("the document exceeds the BSON size limit"); }

  Status Value(od::value value, std::string_view key, bson_t* parent) {
    od::json_type type;
    QUARRY_JSON_GET(value.type(), type);
    const char* k = key.data();
    const int klen = static_cast<int>(key.size());
    switch (type) {
      case od::json_type::object: {
        od::object object;
        QUARRY_JSON_GET(value.get_object(), object);
        return Object(object, key, parent);
      }
      case od::json_type::array: {
        od::array array;
        QUARRY_JSON_GET(value.get_array(), array);
        bson_t child;
        if (!bson_append_array_begin(parent, k, klen, &child)) return TooLarge();
        std::uint32_t index = 0;
        for (auto element_result : array) {
          od::value element;
          QUARRY_JSON_GET(element_result, element);
          char digits[16];
          const char* index_key = nullptr;
          const std::size_t index_len =
              bson_uint32_to_string(index++, &index_key, digits, sizeof digits);
          QUARRY_RETURN_IF_ERROR(Value(element, std::string_view(index_key, index_len), &child));
        }
        if (!bson_append_array_end(parent, &child)) return TooLarge();
        return Status::OK();
      }
      case od::json_type::string: {
        std::string_view text;
        QUARRY_JSON_GET(value.get_string(), text);
        if (!bson_append_utf8(parent, k, klen, text.data(), static_cast<int>(text.size())))
          return TooLarge();
        return Status::OK();
      }
      case od::json_type::number:
        return Number(value, key, parent);
      case od::json_type::boolean: {
        bool flag;
        if (value.get_bool().get(flag) != simdjson::SUCCESS) {
          return ParseError("invalid JSON: a bad literal where true or false was expected");
        }
        if (!bson_append_bool(parent, k, klen, flag)) return TooLarge();
        return Status::OK();
      }
      case od::json_type::null: {
        bool is_null = false;
        if (value.is_null().get(is_null) != simdjson::SUCCESS || !is_null) {
          return ParseError("invalid JSON: a bad literal where null was expected");
        }
        if (!bson_append_null(parent, k, klen)) return TooLarge();
        return Status::OK();
      }
    }
    return ParseError("invalid JSON value");
  }

  Status Number(od::value value, std::string_view key, bson_t* parent) {
    const char* k = key.data();
    const int klen = static_cast<int>(key.size());
    od::number_type kind;
    if (value.get_number_type().get(kind) == simdjson::SUCCESS &&
        kind == od::number_type::signed_integer) {
      std::int64_t number;
      QUARRY_JSON_GET(value.get_int64(), number);
      const bool appended =
          number >= std::numeric_limits<std::int32_t>::min() &&
                  number <= std::numeric_limits<std::int32_t>::max()
              ? bson_append_int32(parent, k, klen, static_cast<std::int32_t>(number))
              : bson_append_int64(parent, k, klen, number);
      return appended ? Status::OK() : TooLarge();
    }
    // Fractions, exponents and integers beyond int64 become doubles, as in mongoimport.
    double number;
    QUARRY_JSON_GET(value.get_double(), number);
    if (!bson_append_double(parent, k, klen, number)) return TooLarge();
    return Status::OK();
  }

  Status Object(od::object object, std::string_view key, bson_t* parent) {
    auto iterator_result = object.begin();
    od::object_iterator iterator;
    QUARRY_JSON_GET(iterator_result, iterator);
    auto end_result = object.end();
    od::object_iterator end;
    QUARRY_JSON_GET(end_result, end);
    if (iterator == end) {
      bson_t child;
      if (!bson_append_document_begin(parent, key.data(), static_cast<int>(key.size()), &child) ||
          !bson_append_document_end(parent, &child)) {
        return TooLarge();
      }
      return Status::OK();
    }
    od::field first;
    QUARRY_JSON_GET(*iterator, first);
    std::string_view first_key;
    QUARRY_JSON_GET(first.unescaped_key(), first_key);
    if (WrapperKeyOf(first_key) != 0) {
      WrapperParts parts;
      QUARRY_RETURN_IF_ERROR(WrapperField(first_key, first.value(), &parts));
      for (++iterator; iterator != end; ++iterator) {
        od::field field;
        QUARRY_JSON_GET(*iterator, field);
        std::string_view field_key;
        QUARRY_JSON_GET(field.unescaped_key(), field_key);
        QUARRY_RETURN_IF_ERROR(WrapperField(field_key, field.value(), &parts));
      }
      return AppendWrapper(parts, key, parent);
    }
    bson_t child;
    if (!bson_append_document_begin(parent, key.data(), static_cast<int>(key.size()), &child)) {
      return TooLarge();
    }
    QUARRY_RETURN_IF_ERROR(CheckKey(first_key));
    QUARRY_RETURN_IF_ERROR(Value(first.value(), first_key, &child));
    for (++iterator; iterator != end; ++iterator) {
      od::field field;
      QUARRY_JSON_GET(*iterator, field);
      std::string_view field_key;
      QUARRY_JSON_GET(field.unescaped_key(), field_key);
      QUARRY_RETURN_IF_ERROR(CheckKey(field_key));
      QUARRY_RETURN_IF_ERROR(Value(field.value(), field_key, &child));
    }
    if (!bson_append_document_end(parent, &child)) return TooLarge();
    return Status::OK();
  }

  static Status BadWrapper(std::string_view key, std::string_view why) {
    return ParseError("invalid Extended JSON " + std::string(key) + ": " + std::string(why));
  }

  static Status String(od::value value, std::string_view key, std::string* out) {
    std::string_view text;
    if (value.get_string().get(text) != simdjson::SUCCESS)
      return BadWrapper(key, "expected a string");
    out->assign(text);
    return Status::OK();
  }

  static Status Uint32(od::value value, std::string_view key, std::uint32_t* out) {
    std::uint64_t number;
    if (value.get_uint64().get(number) != simdjson::SUCCESS || number > 0xFFFFFFFFu) {
      return BadWrapper(key, "expected an unsigned 32-bit integer");
    }
    *out = static_cast<std::uint32_t>(number);
    return Status::OK();
  }

  // Reads the members of a wrapper's object value ({"base64", "subType"}, {"t", "i"}, ...).
  template <typename OnMember>
  static Status Members(od::value value, std::string_view key, OnMember on_member) {
    od::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS)
      return BadWrapper(key, "expected an object");
    for (auto field_result : object) {
      od::field field;
      QUARRY_JSON_GET(field_result, field);
      std::string_view member;
      QUARRY_JSON_GET(field.unescaped_key(), member);
      QUARRY_RETURN_IF_ERROR(on_member(member, field.value()));
    }
    return Status::OK();
  }

  Status WrapperField(std::string_view key, od::value value, WrapperParts* parts) {
    const std::uint32_t bit = WrapperKeyOf(key);
    if (bit == 0) return BadWrapper(key, "not an Extended JSON key beside the others");
    if ((parts->keys & bit) != 0) return BadWrapper(key, "repeated");
    parts->keys |= bit;
    switch (bit) {
      case kOid:
      case kUuid:
      case kSymbol:
      case kCode:
      case kNumberInt:
      case kNumberDouble:
      case kNumberDecimal:
        return String(value, key, &parts->text);
      case kNumberLong: {
        od::json_type type;
        QUARRY_JSON_GET(value.type(), type);
        if (type == od::json_type::number) {
          parts->number_is_json_number = true;
          if (value.get_int64().get(parts->json_number) != simdjson::SUCCESS) {
            return BadWrapper(key, "expected a 64-bit integer");
          }
          return Status::OK();
        }
        return String(value, key, &parts->text);
      }
      case kType:
      case kOptions:
        return String(value, key, &parts->second);
      case kRegex: {
        od::json_type type;
        QUARRY_JSON_GET(value.type(), type);
        if (type != od::json_type::string)
          return BadWrapper(key, "expected the pattern as a string");
        return String(value, key, &parts->text);
      }
      case kBinary: {
        od::json_type type;
        QUARRY_JSON_GET(value.type(), type);
        if (type == od::json_type::string) return String(value, key, &parts->text);
        parts->binary_is_object = true;
        std::uint32_t seen = 0;
        QUARRY_RETURN_IF_ERROR(Members(value, key, [&](std::string_view member, od::value v) {
          if (member == "base64") return seen |= 1, String(v, "$binary.base64", &parts->text);
          if (member == "subType") return seen |= 2, String(v, "$binary.subType", &parts->second);
          return BadWrapper(key, "unexpected member " + std::string(member));
        }));
        return seen == 3 ? Status::OK() : BadWrapper(key, "needs base64 and subType");
      }
      case kRegularExpression: {
        std::uint32_t seen = 0;
        QUARRY_RETURN_IF_ERROR(Members(value, key, [&](std::string_view member, od::value v) {
          if (member == "pattern")
            return seen |= 1, String(v, "$regularExpression.pattern", &parts->text);
          if (member == "options")
            return seen |= 2, String(v, "$regularExpression.options", &parts->second);
          return BadWrapper(key, "unexpected member " + std::string(member));
        }));
        return seen == 3 ? Status::OK() : BadWrapper(key, "needs pattern and options");
      }
      case kTimestamp: {
        std::uint32_t seen = 0;
        QUARRY_RETURN_IF_ERROR(Members(value, key, [&](std::string_view member, od::value v) {
          if (member == "t") return seen |= 1, Uint32(v, "$timestamp.t", &parts->t);
          if (member == "i") return seen |= 2, Uint32(v, "$timestamp.i", &parts->i);
          return BadWrapper(key, "unexpected member " + std::string(member));
        }));
        return seen == 3 ? Status::OK() : BadWrapper(key, "needs t and i");
      }
      case kDate:
        return Date(value, parts);
      case kMinKey:
      case kMaxKey: {
        std::int64_t one;
        if (value.get_int64().get(one) != simdjson::SUCCESS || one != 1)
          return BadWrapper(key, "expected 1");
        return Status::OK();
      }
      case kUndefined: {
        bool flag;
        if (value.get_bool().get(flag) != simdjson::SUCCESS || !flag)
          return BadWrapper(key, "expected true");
        return Status::OK();
      }
      case kScope: {
        od::object object;
        if (value.get_object().get(object) != simdjson::SUCCESS)
          return BadWrapper(key, "expected a document");
        return Fields(object, &parts->scope);
      }
      case kDbPointer: {
        std::uint32_t seen = 0;
        QUARRY_RETURN_IF_ERROR(Members(value, key, [&](std::string_view member, od::value v) {
          if (member == "$ref") return seen |= 1, String(v, "$dbPointer.$ref", &parts->pointer_ns);
          if (member != "$id") return BadWrapper(key, "unexpected member " + std::string(member));
          seen |= 2;
          std::string hex;
          QUARRY_RETURN_IF_ERROR(
              Members(v, "$dbPointer.$id", [&](std::string_view id_member, od::value id) {
                if (id_member != "$oid")
                  return BadWrapper("$dbPointer.$id", "expected {\"$oid\": ...}");
                return String(id, "$dbPointer.$id.$oid", &hex);
              }));
          if (!bson_oid_is_valid(hex.data(), hex.size()) || hex.size() != 24) {
            return BadWrapper("$dbPointer.$id", "not 24 hexadecimal digits");
          }
          bson_oid_init_from_string(&parts->pointer_id, hex.c_str());
          return Status::OK();
        }));
        return seen == 3 ? Status::OK() : BadWrapper(key, "needs $ref and $id");
      }
    }
    return BadWrapper(key, "unsupported");
  }

  // {"$date": "ISO-8601"} (relaxed), {"$date": {"$numberLong": "ms"}} (canonical), or
  // {"$date": ms} as older tools wrote it.
  static Status Date(od::value value, WrapperParts* parts) {
    od::json_type type;
    QUARRY_JSON_GET(value.type(), type);
    if (type == od::json_type::string) {
      std::string_view text;
      QUARRY_JSON_GET(value.get_string(), text);
      auto millis = ParseIsoDateMillis(text);
      if (!millis)
        return BadWrapper("$date", "not an ISO-8601 date: \"" + std::string(text) + "\"");
      parts->millis = *millis;
      return Status::OK();
    }
    if (type == od::json_type::number) {
      double number;
      QUARRY_JSON_GET(value.get_double(), number);
      if (!std::isfinite(number)) return BadWrapper("$date", "not a finite number");
      parts->millis = static_cast<std::int64_t>(number);
      return Status::OK();
    }
    std::string text;
    bool seen = false;
    QUARRY_RETURN_IF_ERROR(Members(value, "$date", [&](std::string_view member, od::value v) {
      if (member != "$numberLong") return BadWrapper("$date", "expected {\"$numberLong\": ...}");
      seen = true;
      return String(v, "$date.$numberLong", &text);
    }));
    if (!seen || !ParseInt64(text, &parts->millis))
      return BadWrapper("$date", "expected a 64-bit integer");
    return Status::OK();
  }

  static bool ParseInt64(const std::string& text, std::int64_t* out) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return false;
    *out = value;
    return true;
  }

  static Status AppendWrapper(WrapperParts& parts, std::string_view key, bson_t* parent) {
    const char* k = key.data();
    const int klen = static_cast<int>(key.size());
    bool appended = false;
    switch (parts.keys) {
      case kOid: {
        if (parts.text.size() != 24 || !bson_oid_is_valid(parts.text.data(), parts.text.size())) {
          return BadWrapper("$oid", "not 24 hexadecimal digits");
        }
        bson_oid_t oid;
        bson_oid_init_from_string(&oid, parts.text.c_str());
        appended = bson_append_oid(parent, k, klen, &oid);
        break;
      }
      case kDate:
        appended = bson_append_date_time(parent, k, klen, parts.millis);
        break;
      case kNumberInt: {
        std::int64_t number;
        if (!ParseInt64(parts.text, &number) || number < std::numeric_limits<std::int32_t>::min() ||
            number > std::numeric_limits<std::int32_t>::max()) {
          return BadWrapper("$numberInt", "not a 32-bit integer");
        }
        appended = bson_append_int32(parent, k, klen, static_cast<std::int32_t>(number));
        break;
      }
      case kNumberLong: {
        std::int64_t number = parts.json_number;
        if (!parts.number_is_json_number && !ParseInt64(parts.text, &number)) {
          return BadWrapper("$numberLong", "not a 64-bit integer");
        }
        appended = bson_append_int64(parent, k, klen, number);
        break;
      }
      case kNumberDouble: {
        double number;
        if (parts.text == "Infinity") {
          number = std::numeric_limits<double>::infinity();
        } else if (parts.text == "-Infinity") {
          number = -std::numeric_limits<double>::infinity();
        } else if (parts.text == "NaN") {
          number = std::numeric_limits<double>::quiet_NaN();
        } else {
          char* end = nullptr;
          number = std::strtod(parts.text.c_str(), &end);
          if (parts.text.empty() || end != parts.text.c_str() + parts.text.size()) {
            return BadWrapper("$numberDouble", "not a number");
          }
        }
        appended = bson_append_double(parent, k, klen, number);
        break;
      }
      case kNumberDecimal: {
        bson_decimal128_t decimal;
        if (!bson_decimal128_from_string_w_len(parts.text.data(),
                                               static_cast<int>(parts.text.size()), &decimal)) {
          return BadWrapper("$numberDecimal", "not a decimal number");
        }
        appended = bson_append_decimal128(parent, k, klen, &decimal);
        break;
      }
      case kBinary:
      case kBinary | kType: {
        if (parts.binary_is_object == ((parts.keys & kType) != 0)) {
          return BadWrapper("$binary",
                            "expected {\"base64\", \"subType\"}, or a string beside $type");
        }
        auto bytes = DecodeBase64(parts.text);
        if (!bytes) return BadWrapper("$binary", "not base64");
        auto subtype = ParseHexSubtype(parts.second);
        if (!subtype)
          return BadWrapper("$binary", "the subtype is not one or two hexadecimal digits");
        appended = bson_append_binary(parent, k, klen, static_cast<bson_subtype_t>(*subtype),
                                      reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                      static_cast<std::uint32_t>(bytes->size()));
        break;
      }
      case kUuid: {
        std::string hex;
        for (char c : parts.text) {
          if (c != '-') hex.push_back(c);
        }
        auto bytes = DecodeHex(hex);
        if (!bytes || bytes->size() != 16) return BadWrapper("$uuid", "not a UUID");
        appended = bson_append_binary(parent, k, klen, BSON_SUBTYPE_UUID,
                                      reinterpret_cast<const std::uint8_t*>(bytes->data()), 16);
        break;
      }
      case kRegularExpression:
      case kRegex:
      case kRegex | kOptions:
        appended =
            bson_append_regex_w_len(parent, k, klen, parts.text.data(),
                                    static_cast<int>(parts.text.size()), parts.second.c_str());
        break;
      case kTimestamp:
        appended = bson_append_timestamp(parent, k, klen, parts.t, parts.i);
        break;
      case kMinKey:
        appended = bson_append_minkey(parent, k, klen);
        break;
      case kMaxKey:
        appended = bson_append_maxkey(parent, k, klen);
        break;
      case kUndefined:
        appended = bson_append_undefined(parent, k, klen);
        break;
      case kSymbol:
        appended = bson_append_symbol(parent, k, klen, parts.text.data(),
                                      static_cast<int>(parts.text.size()));
        break;
      case kCode:
        appended = bson_append_code(parent, k, klen, parts.text.c_str());
        break;
      case kCode | kScope:
        appended = bson_append_code_with_scope(parent, k, klen, parts.text.c_str(), &parts.scope);
        break;
      case kDbPointer:
        appended =
            bson_append_dbpointer(parent, k, klen, parts.pointer_ns.c_str(), &parts.pointer_id);
        break;
      default:
        return ParseError(
            "invalid Extended JSON: a document mixes wrapper keys that do not belong together");
    }
    return appended ? Status::OK() : TooLarge();
  }
};

}  // namespace

struct JsonToBson::Parser {
  od::parser parser;
  std::string padded;  // a copy of a document whose buffer has too little slack after it
};

JsonToBson::JsonToBson() : parser_(std::make_unique<Parser>()) {}
JsonToBson::~JsonToBson() = default;

Status JsonToBson::Convert(const char* text, std::size_t size, std::size_t readable, bson_t* out) {
  Status strict = ConvertStrict(text, size, readable, out);
  if (strict.ok()) return strict;
  // Strict JSON costs nothing more: only a document that fails is read as the shell's syntax.
  // When that reads, what is wrong is in the values (the second conversion says what); when it
  // does not either, both parsers say where they stopped.
  StatusWith<std::string> rewritten = client::ShellJsonToExtendedJson(std::string_view(text, size));
  if (!rewritten.ok()) {
    return Status(strict.code(), std::string(strict.reason()) + " (nor the shell's syntax: " +
                                     std::string(rewritten.status().reason()) + ")");
  }
  bson_reinit(out);
  return ConvertStrict(rewritten.value().data(), rewritten.value().size(), rewritten.value().size(),
                       out);
}

Status JsonToBson::ConvertStrict(const char* text, std::size_t size, std::size_t readable,
                                 bson_t* out) {
  if (readable < size + simdjson::SIMDJSON_PADDING) {
    parser_->padded.assign(text, size);
    parser_->padded.resize(size + simdjson::SIMDJSON_PADDING);
    text = parser_->padded.data();
    readable = parser_->padded.size();
  }
  od::document document;
  QUARRY_JSON_GET(parser_->parser.iterate(text, size, readable), document);
  od::object object;
  if (document.get_object().get(object) != simdjson::SUCCESS) {
    return ParseError("expected a document (a JSON object)");
  }
  Converter converter;
  // The reader ends `text` at the document's closing brace, so nothing follows it.
  return converter.Fields(object, out);
}

}  // namespace quarry::tools::importing
