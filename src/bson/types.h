// BSON element types and MongoDB's canonical order between them.
#pragma once

#include <cstdint>
#include <string_view>

namespace quarry::bson {

enum class Type : std::uint8_t {
  kEod = 0x00,
  kDouble = 0x01,
  kString = 0x02,
  kDocument = 0x03,
  kArray = 0x04,
  kBinary = 0x05,
  kUndefined = 0x06,
  kObjectId = 0x07,
  kBool = 0x08,
  kDate = 0x09,
  kNull = 0x0A,
  kRegex = 0x0B,
  kDbPointer = 0x0C,
  kCode = 0x0D,
  kSymbol = 0x0E,
  kCodeWithScope = 0x0F,
  kInt32 = 0x10,
  kTimestamp = 0x11,
  kInt64 = 0x12,
  kDecimal128 = 0x13,
  kMinKey = 0xFF,
  kMaxKey = 0x7F,
};

bool IsKnownType(std::uint8_t byte);

// MongoDB's comparison rank of a type: MinKey < null/undefined < numbers < string/symbol <
// object < array < binary < ObjectId < bool < date < timestamp < regex < DBPointer < code <
// code with scope < MaxKey. Types of equal rank compare by value.
int CanonicalTypeRank(Type type);

bool IsNumber(Type type);

// $type's alias for `type` ("double", "string", "object", ...).
std::string_view TypeAlias(Type type);
// Parses a $type alias ("int", "long", ...); false when unknown. "number" is not a single
// type and is handled by the caller.
bool TypeFromAlias(std::string_view alias, Type* type);

}  // namespace quarry::bson
