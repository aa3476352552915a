// Codes and code distances. A scalar code is a float correction followed by one byte per
// dimension: with v ≈ low + step * q, the dot product of two vectors is
//   d * low² + low * step * (Σq + Σp) + step² * Σ q·p,
// so each code carries its own share, low * step * Σq + d * low² / 2, and a distance needs one
// byte dot product. The squared Euclidean distance is step² * Σ (q - p)², with no correction.
#include "vector/vector_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "vector/distance_kernels.h"

namespace quarry::vector {
namespace {

constexpr std::size_t kCorrectionBytes = sizeof(float);

float Correction(const void* code) {
  float correction;
  std::memcpy(&correction, code, sizeof correction);
  return correction;
}

const std::uint8_t* Bytes(const void* code) {
  return static_cast<const std::uint8_t*>(code) + kCorrectionBytes;
}

float FloatL2(const void* a, const void* b, const void* codec) {
  const std::size_t n = static_cast<const VectorCodec*>(codec)->dimensions();
  return SquaredL2({static_cast<const float*>(a), n}, {static_cast<const float*>(b), n});
}

float FloatNegatedDot(const void* a, const void* b, const void* codec) {
  const std::size_t n = static_cast<const VectorCodec*>(codec)->dimensions();
  return -DotProduct({static_cast<const float*>(a), n}, {static_cast<const float*>(b), n});
}

float ScalarL2(const void* a, const void* b, const void* codec) {
  const auto* c = static_cast<const VectorCodec*>(codec);
  const float step = c->range().step();
  return step * step * static_cast<float>(SquaredL2U8(Bytes(a), Bytes(b), c->dimensions()));
}

float ScalarNegatedDot(const void* a, const void* b, const void* codec) {
  const auto* c = static_cast<const VectorCodec*>(codec);
  const float step = c->range().step();
  const float bytes = static_cast<float>(DotProductU8(Bytes(a), Bytes(b), c->dimensions()));
  return -(Correction(a) + Correction(b) + step * step * bytes);
}

float BinaryHamming(const void* a, const void* b, const void* codec) {
  const std::size_t words = static_cast<const VectorCodec*>(codec)->code_bytes() / 8;
  return static_cast<float>(HammingDistance(static_cast<const std::uint8_t*>(a),
                                            static_cast<const std::uint8_t*>(b), words));
}

VectorCodec::DistanceFn DistanceFor(Similarity similarity, Quantization quantization) {
  const bool euclidean = similarity == Similarity::kEuclidean;
  switch (quantization) {
    case Quantization::kNone:
      return euclidean ? FloatL2 : FloatNegatedDot;
    case Quantization::kScalar:
      return euclidean ? ScalarL2 : ScalarNegatedDot;
    case Quantization::kBinary:
      return BinaryHamming;
  }
  return FloatL2;
}

std::size_t CodeBytes(std::size_t dimensions, Quantization quantization) {
  switch (quantization) {
    case Quantization::kNone:
      return dimensions * sizeof(float);
    case Quantization::kScalar:
      return kCorrectionBytes + dimensions;
    case Quantization::kBinary:
      return (dimensions + 63) / 64 * 8;  // whole words for the popcount loop
  }
  return 0;
}

}  // namespace

std::optional<Quantization> ParseQuantization(std::string_view name) {
  if (name == "none") return Quantization::kNone;
  if (name == "scalar") return Quantization::kScalar;
  if (name == "binary") return Quantization::kBinary;
  return std::nullopt;
}

ScalarRange LearnScalarRange(std::span<const float> vectors, std::size_t dimensions) {
  std::vector<float> values(vectors.begin(), vectors.end());
  const double confidence = std::max(0.9, 1.0 - 1.0 / (static_cast<double>(dimensions) + 1.0));
  const double tail = (1.0 - confidence) / 2.0;
  const auto at = [&](double quantile) {
    const auto index = static_cast<std::size_t>(quantile * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index),
                     values.end());
    return values[index];
  };
  ScalarRange range{at(tail), at(1.0 - tail)};
  // One value everywhere still needs a step above zero.
  if (!(range.high > range.low)) range.high = range.low + 1.0f;
  return range;
}

VectorCodec::VectorCodec(std::size_t dimensions, Similarity similarity, Quantization quantization,
                         ScalarRange range)
    : dimensions_(dimensions),
      similarity_(similarity),
      quantization_(quantization),
      range_(range),
      code_bytes_(CodeBytes(dimensions, quantization)),
      distance_fn_(DistanceFor(similarity, quantization)) {}

void VectorCodec::Encode(std::span<const float> vector, std::uint8_t* code) const {
  switch (quantization_) {
    case Quantization::kNone:
      std::memcpy(code, vector.data(), vector.size_bytes());
      return;
    case Quantization::kScalar: {
      const float step = range_.step();
      std::uint8_t* bytes = code + kCorrectionBytes;
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < dimensions_; ++i) {
        const float clamped = std::clamp(vector[i], range_.low, range_.high);
        bytes[i] = static_cast<std::uint8_t>(std::lround((clamped - range_.low) / step));
        sum += bytes[i];
      }
      const float correction = range_.low * step * static_cast<float>(sum) +
                               static_cast<float>(dimensions_) * range_.low * range_.low / 2.0f;
      std::memcpy(code, &correction, sizeof correction);
      return;
    }
    case Quantization::kBinary:
      std::memset(code, 0, code_bytes_);
      for (std::size_t i = 0; i < dimensions_; ++i) {
        if (vector[i] > 0) code[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
      }
      return;
  }
}

std::vector<std::uint8_t> VectorCodec::Encode(std::span<const float> vector) const {
  std::vector<std::uint8_t> code(code_bytes_);
  Encode(vector, code.data());
  return code;
}

}  // namespace quarry::vector
