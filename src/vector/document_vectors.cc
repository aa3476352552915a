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

// Walks the array's bytes rather than its elements: every query vector and every indexed
// document's vector passes here, hundreds of numbers each, and an element costs a few
// instructions this way instead of a general element's decoding. The bytes are a valid
// document (DocumentView's contract), so each name ends with a NUL before the array does.
std::optional<std::vector<float>> FromNumbers(bson::DocumentView array) {
  const char* p = array.data() + 4;
  const char* const end = array.data() + array.size() - 1;
  std::vector<float> out;
  // A double under a name of up to three digits takes 11-13 bytes.
  out.reserve(array.size() / 11);
  while (p < end) {
    const auto type = static_cast<bson::Type>(static_cast<std::uint8_t>(*p));
    p += std::strlen(p + 1) + 2;  // the type byte, the name and its NUL
    double value;
    if (type == bson::Type::kDouble) {
      std::memcpy(&value, p, 8);
      p += 8;
    } else if (type == bson::Type::kInt32) {
      std::int32_t n;
      std::memcpy(&n, p, 4);
      value = n;
      p += 4;
    } else if (type == bson::Type::kInt64) {
      std::int64_t n;
      std::memcpy(&n, p, 8);
      value = static_cast<double>(n);
      p += 8;
    } else {
      return std::nullopt;  // not a number, or a Decimal128
    }
    if (!std::isfinite(value)) return std::nullopt;
    out.push_back(static_cast<float>(value));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// Bits first to last, most significant bit of each byte first; the last byte's `padding` low
// bits are not elements. Padding above 7, or padding without data, makes it no vector.
std::optional<std::vector<float>> FromPackedBits(std::uint8_t padding, std::string_view data) {
  if (padding > 7 || (data.empty() && padding != 0)) return std::nullopt;
  const std::size_t bits = data.size() * 8 - padding;
  if (bits == 0) return std::nullopt;
  std::vector<float> out(bits);
  for (std::size_t bit = 0; bit < bits; ++bit) {
    out[bit] = (static_cast<std::uint8_t>(data[bit / 8]) >> (7 - bit % 8)) & 1 ? 1.0f : 0.0f;
  }
  return out;
}

std::optional<std::vector<float>> FromBinary(std::string_view data, VectorForm form) {
  const auto padding = static_cast<std::uint8_t>(data[1]);
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
  } else if (form == VectorForm::kPackedBits) {
    return FromPackedBits(padding, data);
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
  if (form == VectorForm::kNotAVector) return std::nullopt;
  return FromBinary(value.Binary().data, form);
}

bson::ValueView ValueAt(bson::DocumentView document, std::string_view path) {
  bson::DocumentView current = document;
  for (;;) {
    const std::size_t dot = path.find('.');
    bson::ValueView value = current.Get(path.substr(0, dot));
    if (dot == std::string_view::npos) return value;
    if (value.type() != bson::Type::kDocument) return bson::ValueView();
    current = value.Document();
    path.remove_prefix(dot + 1);
  }
}

std::optional<std::vector<float>> VectorAt(bson::DocumentView document, std::string_view path) {
  return VectorOf(ValueAt(document, path));
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

std::vector<bson::DocumentView> ElementsAt(bson::DocumentView document, std::string_view root) {
  std::vector<bson::DocumentView> out;
  bson::ValueView value = ValueAt(document, root);
  if (value.type() == bson::Type::kDocument) {
    out.push_back(value.Document());
  } else if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) {
      if (e.value.type() == bson::Type::kDocument) out.push_back(e.value.Document());
    }
  }
  return out;
}

bson::Document UnderRoot(std::string_view root, bson::DocumentView fields) {
  const std::size_t dot = root.find('.');
  bson::DocumentBuilder b;
  if (dot == std::string_view::npos) {
    b.AppendDocument(root, fields);
  } else {
    bson::Document inner = UnderRoot(root.substr(dot + 1), fields);
    b.AppendDocument(root.substr(0, dot), inner.view());
  }
  return std::move(b).Finish();
}

}  // namespace quarry::vector
