// How a vector index's graph stores its vectors and compares them: full-precision floats, or the
// compact codes of a quantized index (scalar: one byte per dimension; binary: one bit), whose
// distances approximate the full-precision ones and are rescored by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vector/similarity.h"

namespace quarry::vector {

enum class Quantization : std::uint8_t { kNone, kScalar, kBinary };  // persisted: never renumber

// "none", "scalar" or "binary" (the index definition's spelling); nullopt otherwise.
std::optional<Quantization> ParseQuantization(std::string_view name);

// The linear map of scalar quantization: a value v becomes the byte
// round((clamp(v, low, high) - low) / step), step = (high - low) / 255, one range for every
// dimension so that a byte distance is a float distance scaled.
struct ScalarRange {
  float low = 0;
  float high = 1;
  float step() const { return (high - low) / 255.0f; }
};

// The range of `vectors` (each `dimensions` floats, node-major) with the extreme values of the
// tails left out, as Lucene's scalar quantization does: the central 1 - 1/(d + 1) of all values
// (at least 90%), whose bounds then clamp the rest. REQUIRES: !vectors.empty().
ScalarRange LearnScalarRange(std::span<const float> vectors, std::size_t dimensions);

// The code of a vector and the distance between two codes. Distances order pairs as the
// similarity's Distance (similarity.h) would order the vectors: exactly for kNone,
// approximately for kScalar (to the quantization step) and kBinary (Hamming on the signs).
class VectorCodec {
 public:
  using DistanceFn = float (*)(const void* a, const void* b, const void* codec);

  VectorCodec(std::size_t dimensions, Similarity similarity, Quantization quantization,
              ScalarRange range = {});

  std::size_t dimensions() const { return dimensions_; }
  Similarity similarity() const { return similarity_; }
  Quantization quantization() const { return quantization_; }
  const ScalarRange& range() const { return range_; }
  std::size_t code_bytes() const { return code_bytes_; }

  // Writes the code of `vector` (dimensions() floats, as the index stores them) to `code`
  // (code_bytes()).
  void Encode(std::span<const float> vector, std::uint8_t* code) const;
  std::vector<std::uint8_t> Encode(std::span<const float> vector) const;

  // A plain function and its third argument (this codec), as hnswlib's spaces take them.
  DistanceFn distance_fn() const { return distance_fn_; }
  float Distance(const void* a, const void* b) const { return distance_fn_(a, b, this); }

 private:
  std::size_t dimensions_;
  Similarity similarity_;
  Quantization quantization_;
  ScalarRange range_;
  std::size_t code_bytes_;
  DistanceFn distance_fn_;
};

}  // namespace quarry::vector
