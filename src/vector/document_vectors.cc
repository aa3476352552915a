#include "vector/document_vectors.h"

#include <algorithm>
#include <cmath>

#include "bson/builder.h"

namespace quarry::vector {

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
  if (value.type() != bson::Type::kArray) return std::nullopt;
  std::vector<float> out;
  for (const bson::Element& e : value.Document()) {
    if (!e.value.IsNumber() || e.value.type() == bson::Type::kDecimal128) return std::nullopt;
    const double d = e.value.AsDouble();
    if (!std::isfinite(d)) return std::nullopt;
    out.push_back(static_cast<float>(d));
  }
  if (out.empty()) return std::nullopt;
  return out;
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
