#include "vector/document_vectors.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "bson/builder.h"

namespace quarry::vector {

namespace {

constexpr std::uint8_t kVectorSubtype = 9;
constexpr std::uint8_t kFloat32Dtype = 0x27;
constexpr std::uint8_t kInt8Dtype = 0x03;
constexpr std::uint8_t kPackedBitDtype = 0x10;

std::optional<std::vector<float>> FromNumbers(bson::DocumentView array) {
  std::vector<float> out;
  for (const bson::Element& e : array) {
    if (!e.value.IsNumber() || e.value.type() == bson::Type::kDecimal128) return std::nullopt;
    const double d = e.value.AsDouble();
    if (!std::isfinite(d)) return std::nullopt;
    out.push_back(static_cast<float>(d));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<std::vector<float>> FromBinary(std::string_view data, VectorForm form) {
  data.remove_prefix(2);  // dtype and padding
  std::vector<float> out;
  if (form == VectorForm::kFloat32) {
    if (data.size() % 4 != 0) return std::nullopt;
    out.resize(data.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) {
        bits = bits << 8 | static_cast<std::uint8_t>(data[i * 4 + b]);  // little-endian
      }
      std::memcpy(&out[i], &bits, 4);
      if (!std::isfinite(out[i])) return std::nullopt;
    }
  } else if (form == VectorForm::kInt8) {
    for (char c : data) out.push_back(static_cast<float>(static_cast<std::int8_t>(c)));
  } else {
    return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

VectorForm FormOf(bson::ValueView value) {
  if (value.type() == bson::Type::kArray) return VectorForm::kNumbers;
  if (value.type() != bson::Type::kBinary) return VectorForm::kNotAVector;
  bson::BinaryView binary = value.Binary();
  if (binary.subtype != kVectorSubtype || binary.data.size() < 2) return VectorForm::kNotAVector;
  switch (static_cast<std::uint8_t>(binary.data[0])) {
    case kFloat32Dtype:
      return VectorForm::kFloat32;
    case kInt8Dtype:
      return VectorForm::kInt8;
    case kPackedBitDtype:
      return VectorForm::kPackedBits;
    default:
      return VectorForm::kNotAVector;
  }
}

std::optional<std::vector<float>> VectorOf(bson::ValueView value) {
  const VectorForm form = FormOf(value);
  if (form == VectorForm::kNumbers) return FromNumbers(value.Document());
  if (form == VectorForm::kFloat32 || form == VectorForm::kInt8) {
    return FromBinary(value.Binary().data, form);
  }
  return std::nullopt;
}

std::optional<std::vector<float>> VectorAt(bson::DocumentView document, std::string_view path) {
  bson::ValueView value;
  bson::DocumentView current = document;
  for (;;) {
    const std::size_t dot = path.find('.');
    value = current.Get(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    if (value.type() != bson::Type::kDocument) return std::nullopt;
    current = value.Document();
    path.remove_prefix(dot + 1);
  }
  return VectorOf(value);
}

bson::Document FilterFieldsOf(bson::DocumentView document,
                              const std::vector<std::string>& filter_paths) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : document) {
    const bool wanted =
        std::any_of(filter_paths.begin(), filter_paths.end(), [&](const std::string& path) {
          return path == e.key || (path.size() > e.key.size() && path.starts_with(e.key) &&
                                   path[e.key.size()] == '.');
        });
    if (wanted) b.Append(e.key, e.value);
  }
  return std::move(b).Finish();
}

}  // namespace quarry::vector
