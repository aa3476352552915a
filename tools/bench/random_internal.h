// Seeded random choices for the sample-data generators. Only std::mt19937_64's raw output is
// used (the standard fixes its sequence); std's distributions are not, so a seed would give
// different documents with a different standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

namespace quarry::tools::bench {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t Next() { return engine_(); }
  // An integer in [low, high], both inclusive. REQUIRES: low <= high.
  std::int64_t Between(std::int64_t low, std::int64_t high) {
    return low + static_cast<std::int64_t>(Next() % static_cast<std::uint64_t>(high - low + 1));
  }
  // A double in [0, 1).
  double Fraction() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double RealBetween(double low, double high) { return low + (high - low) * Fraction(); }
  bool Chance(double probability) { return Fraction() < probability; }
  // One element of a non-empty array, span or vector.
  template <typename Items>
  const auto& Pick(const Items& items) {
    return items[Next() % std::size(items)];
  }

 private:
  std::mt19937_64 engine_;
};

// Picks indexes in [0, n) with Zipf-like weights 1 / (rank + offset): a few words are common
// and most are rare, as in real text, so the text compresses as real text does.
class ZipfPicker {
 public:
  ZipfPicker(std::size_t n, double offset);
  std::size_t Pick(SeededRandom& random) const;

 private:
  std::vector<double> cumulative_;  // normalised, last element 1.0
};

}  // namespace quarry::tools::bench
