// Collection UUIDs: 16 random bytes (version 4), stored as BSON binary subtype 4.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace quarry::catalog {

struct Uuid {
  std::array<std::uint8_t, 16> bytes{};

  // A new random (version 4, variant 1) UUID. Thread-safe.
  static Uuid Random();
  // From 16 raw bytes; false when `raw` is not 16 bytes long.
  static bool FromBytes(std::string_view raw, Uuid* out);

  std::string_view view() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  // "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"
  std::string ToString() const;
  bool operator==(const Uuid&) const = default;
};

inline constexpr std::uint8_t kUuidBinarySubtype = 4;

}  // namespace quarry::catalog
