// Operands of filter operators that need more than a type check: $mod's numbers, $type's
// type specs, and the bit positions of $bits* operators.
#include <cmath>
#include <string>

#include "query/match/matcher_internal.h"

namespace quarry::query {
namespace {

Status BadValue(std::string reason) { return Status(ErrorCode::kBadValue, std::move(reason)); }

}  // namespace

StatusWith<std::int64_t> ParseModArgument(bson::ValueView value, std::string_view what) {
  if (!value.IsNumber()) return BadValue("malformed mod, " + std::string(what) + " not a number");
  if (value.type() == bson::Type::kDouble || value.type() == bson::Type::kDecimal128) {
    const double d = value.AsDouble();
    if (!std::isfinite(d)) {
      return BadValue("malformed mod, " + std::string(what) +
                      " value is invalid :: caused by :: Unable to coerce NaN/Inf to integral "
                      "type");
    }
    if (d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) {
      return BadValue("malformed mod, " + std::string(what) +
                      " value is invalid :: caused by :: Out of bounds coercing to integral "
                      "value");
    }
  }
  return value.AsInt64();
}

// A $type argument element: a type number or alias.
Status AddTypeSpec(bson::ValueView spec, std::vector<bson::Type>* types, bool* any_number) {
  if (spec.type() == bson::Type::kString) {
    if (spec.String() == "number") {
      *any_number = true;
      return Status::OK();
    }
    bson::Type type;
    if (!bson::TypeFromAlias(spec.String(), &type)) {
      return BadValue("Unknown type name alias: " + std::string(spec.String()));
    }
    types->push_back(type);
    return Status::OK();
  }
  if (spec.IsNumber()) {
    if (!spec.IsIntegral()) {
      return BadValue("Invalid numerical type code: " + spec.ToJson());
    }
    const std::int64_t code = spec.AsInt64();
    if (code == -1) {
      types->push_back(bson::Type::kMinKey);
    } else if (code == 127) {
      types->push_back(bson::Type::kMaxKey);
    } else if (code >= 1 && code <= 19 && bson::IsKnownType(static_cast<std::uint8_t>(code))) {
      types->push_back(static_cast<bson::Type>(code));
    } else {
      return BadValue("Invalid numerical type code: " + spec.ToJson());
    }
    return Status::OK();
  }
  return BadValue("type must be represented as a number or a string");
}

StatusWith<std::vector<std::uint32_t>> ParseBitPositions(std::string_view name,
                                                         bson::ValueView arg) {
  std::vector<std::uint32_t> positions;
  if (arg.type() == bson::Type::kArray) {
    for (const bson::Element& element : arg.Document()) {
      const bson::ValueView v = element.value;
      if (!v.IsNumber() || !v.IsIntegral()) {
        return BadValue("bit positions must be an integer but got: " + std::string(element.key) +
                        ": " + v.ToJson());
      }
      const std::int64_t position = v.AsInt64();
      if (position < 0) {
        return BadValue("bit positions must be >= 0 but got: " + std::string(element.key) + ": " +
                        v.ToJson());
      }
      if (position > 2147483647) {
        return BadValue("bit positions cannot be represented as a 32-bit signed integer: " +
                        std::string(element.key) + ": " + v.ToJson());
      }
      positions.push_back(static_cast<std::uint32_t>(position));
    }
    return positions;
  }
  if (arg.IsNumber()) {
    if (!arg.IsIntegral()) {
      return BadValue("Expected an integer: " + std::string(name) + ": " + arg.ToJson());
    }
    const std::int64_t mask = arg.AsInt64();
    if (mask < 0) {
      return BadValue("Expected a positive number in: " + std::string(name) + ": " + arg.ToJson());
    }
    for (std::uint32_t bit = 0; bit < 63; ++bit) {
      if (((static_cast<std::uint64_t>(mask) >> bit) & 1u) != 0) positions.push_back(bit);
    }
    return positions;
  }
  if (arg.type() == bson::Type::kBinary) {
    std::string_view bytes = arg.Binary().data;
    for (std::size_t byte_idx = 0; byte_idx < bytes.size(); ++byte_idx) {
      for (std::uint32_t bit = 0; bit < 8; ++bit) {
        if (((static_cast<unsigned char>(bytes[byte_idx]) >> bit) & 1u) != 0) {
          positions.push_back(static_cast<std::uint32_t>(byte_idx * 8 + bit));
        }
      }
    }
    return positions;
  }
  return BadValue(std::string(name) + " takes an Array, a number, or a BinData but received: " +
                  std::string(name) + ": " + arg.ToJson());
}

}  // namespace quarry::query
