// Type ranks and $type aliases.
#include "bson/types.h"

#include <array>
#include <utility>

namespace quarry::bson {
namespace {

constexpr std::array<std::pair<Type, std::string_view>, 21> kAliases = {{
    {Type::kDouble, "double"},
    {Type::kString, "string"},
    {Type::kDocument, "object"},
    {Type::kArray, "array"},
    {Type::kBinary, "binData"},
    {Type::kUndefined, "undefined"},
    {Type::kObjectId, "objectId"},
    {Type::kBool, "bool"},
    {Type::kDate, "date"},
    {Type::kNull, "null"},
    {Type::kRegex, "regex"},
    {Type::kDbPointer, "dbPointer"},
    {Type::kCode, "javascript"},
    {Type::kSymbol, "symbol"},
    {Type::kCodeWithScope, "javascriptWithScope"},
    {Type::kInt32, "int"},
    {Type::kTimestamp, "timestamp"},
    {Type::kInt64, "long"},
    {Type::kDecimal128, "decimal"},
    {Type::kMinKey, "minKey"},
    {Type::kMaxKey, "maxKey"},
}};

}  // namespace

bool IsKnownType(std::uint8_t byte) {
  return (byte >= 0x01 && byte <= 0x13) || byte == 0xFF || byte == 0x7F;
}

int CanonicalTypeRank(Type type) {
  switch (type) {
    case Type::kMinKey:
      return -1;
    case Type::kEod:
      return 0;  // "missing" sorts with null
    case Type::kUndefined:
      return 0;
    case Type::kNull:
      return 5;
    case Type::kDouble:
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDecimal128:
      return 10;
    case Type::kString:
    case Type::kSymbol:
      return 15;
    case Type::kDocument:
      return 20;
    case Type::kArray:
      return 25;
    case Type::kBinary:
      return 30;
    case Type::kObjectId:
      return 35;
    case Type::kBool:
      return 40;
    case Type::kDate:
      return 45;
    case Type::kTimestamp:
      return 47;
    case Type::kRegex:
      return 50;
    case Type::kDbPointer:
      return 55;
    case Type::kCode:
      return 60;
    case Type::kCodeWithScope:
      return 65;
    case Type::kMaxKey:
      return 127;
  }
  return 0;
}

bool IsNumber(Type type) {
  return type == Type::kDouble || type == Type::kInt32 || type == Type::kInt64 ||
         type == Type::kDecimal128;
}

std::string_view TypeAlias(Type type) {
  for (const auto& [t, alias] : kAliases) {
    if (t == type) return alias;
  }
  return "missing";
}

bool TypeFromAlias(std::string_view alias, Type* type) {
  for (const auto& [t, name] : kAliases) {
    if (name == alias) {
      *type = t;
      return true;
    }
  }
  return false;
}

}  // namespace quarry::bson
