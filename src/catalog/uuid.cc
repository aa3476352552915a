// UUID generation and formatting.
#include "catalog/uuid.h"

#include <cstring>
#include <random>

namespace quarry::catalog {

Uuid Uuid::Random() {
  thread_local std::mt19937_64 rng([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }());
  Uuid uuid;
  std::uint64_t high = rng();
  std::uint64_t low = rng();
  std::memcpy(uuid.bytes.data(), &high, 8);
  std::memcpy(uuid.bytes.data() + 8, &low, 8);
  uuid.bytes[6] = static_cast<std::uint8_t>((uuid.bytes[6] & 0x0F) | 0x40);  // version 4
  uuid.bytes[8] = static_cast<std::uint8_t>((uuid.bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return uuid;
}

bool Uuid::FromBytes(std::string_view raw, Uuid* out) {
  if (raw.size() != 16) return false;
  std::memcpy(out->bytes.data(), raw.data(), 16);
  return true;
}

std::string Uuid::ToString() const {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xF]);
  }
  return out;
}

}  // namespace quarry::catalog
