// Key choice as YCSB makes it: a Zipfian distribution (Gray et al., "Quickly generating
// billion-record synthetic databases", SIGMOD 1994), its scrambled form that scatters the
// popular keys over the key space, and "latest", skewed to the most recently inserted keys.
// Every generator draws from a caller's std::mt19937_64, so a seed fixes the sequence.
#pragma once

#include <cstdint>
#include <random>

namespace quarry::bench {

// YCSB's default skew: item i (from 0) is drawn with probability proportional to 1/(i+1)^0.99.
inline constexpr double kZipfianConstant = 0.99;

// The generalised harmonic number: the sum over i = 1..n of 1/i^theta. Exact for the first 2^20
// terms, then the Euler-Maclaurin formula, so n may be in the billions.
double Zeta(std::uint64_t n, double theta);

// A uniform double in [0, 1) from 53 random bits.
double UnitInterval(std::mt19937_64& random);

// Items [0, items), item 0 the most popular. REQUIRES: items >= 1, 0 < theta < 1.
class ZipfianGenerator {
 public:
  explicit ZipfianGenerator(std::uint64_t items, double theta = kZipfianConstant);

  // Extends the range to [0, items); a smaller `items` changes nothing.
  void Grow(std::uint64_t items);
  std::uint64_t Next(std::mt19937_64& random) const;
  std::uint64_t items() const { return items_; }

 private:
  void DeriveConstants();

  std::uint64_t items_;
  double theta_;
  double zeta_two_;
  double zeta_items_;
  double alpha_ = 0;
  double eta_ = 0;
};

// YCSB's scrambled Zipfian: a rank drawn from a Zipfian over 10^10 items, hashed (FNV-1a) onto
// [0, items). As skewed as the Zipfian, but the popular keys are spread over the key space
// rather than all at its start, and `items` may change between draws. Thread-safe.
class ScrambledZipfianChooser {
 public:
  // The first one made in a process sums zeta for the 10^10 ranks, which takes milliseconds.
  ScrambledZipfianChooser();

  // REQUIRES: items >= 1.
  std::uint64_t Next(std::mt19937_64& random, std::uint64_t items) const;

 private:
  const ZipfianGenerator& ranks_;
};

// FNV-1a over the eight bytes of `value`, lowest first.
std::uint64_t Fnv1a64(std::uint64_t value);

// YCSB's "latest": item items - 1 - z for a Zipfian z over [0, items), so the most recently
// inserted (highest) keys are the most popular. Keeps its Zipfian grown to the largest `items`
// seen; not thread-safe (one per client thread).
class LatestChooser {
 public:
  // Sums zeta for `items` now, so that the first draws need not.
  explicit LatestChooser(std::uint64_t items) : recency_(items) {}

  // REQUIRES: items >= 1.
  std::uint64_t Next(std::mt19937_64& random, std::uint64_t items);

 private:
  ZipfianGenerator recency_;
};

}  // namespace quarry::bench
