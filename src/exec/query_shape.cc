#include "exec/query_shape.h"

#include <cstdint>

#include "bson/builder.h"

namespace quarry::exec {
namespace {

void AppendValueShape(std::string_view key, bson::ValueView value, std::string* out);

void AppendDocumentShape(bson::DocumentView doc, std::string* out) {
  out->push_back('{');
  for (const bson::Element& e : doc) {
    out->append(e.key);
    out->push_back(':');
    AppendValueShape(e.key, e.value, out);
    out->push_back(',');
  }
  out->push_back('}');
}

// How a plain operand is used: its bounds differ by kind (null also reads missing fields, an
// array matches itself or an element, a regex may give a prefix range), its value does not.
char OperandKind(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kNull:
      return 'n';
    case bson::Type::kArray:
      return 'a';
    case bson::Type::kRegex:
      return 'r';
    case bson::Type::kDocument:
      return 'd';
    default:
      return 'v';
  }
}

bool IsOperatorDocument(bson::ValueView value) {
  return value.type() == bson::Type::kDocument && !value.Document().empty() &&
         value.Document().FirstKey().starts_with('$');
}

void AppendValueShape(std::string_view key, bson::ValueView value, std::string* out) {
  const bool logical = key == "$and" || key == "$or" || key == "$nor";
  if (logical && value.type() == bson::Type::kArray) {
    out->push_back('[');
    for (const bson::Element& branch : value.Document()) {
      AppendValueShape("", branch.value, out);
      out->push_back(',');
    }
    out->push_back(']');
    return;
  }
  if (key == "$exists") {
    out->append(value.Truthy() ? "t" : "f");  // the two read different index keys
    return;
  }
  if (key == "$elemMatch" || key == "$not" || logical || IsOperatorDocument(value) ||
      (key.empty() && value.type() == bson::Type::kDocument)) {
    if (value.type() == bson::Type::kDocument) {
      AppendDocumentShape(value.Document(), out);
      return;
    }
  }
  if (key == "$in" || key == "$nin" || key == "$all") {
    out->push_back('[');
    if (value.type() == bson::Type::kArray) {
      for (const bson::Element& e : value.Document()) out->push_back(OperandKind(e.value));
    }
    out->push_back(']');
    return;
  }
  out->push_back(OperandKind(value));
}

}  // namespace

std::string FilterShape(bson::DocumentView filter) {
  std::string shape;
  AppendDocumentShape(filter, &shape);
  return shape;
}

bson::Document SortDocumentOf(const query::SortSpec& sort) {
  bson::DocumentBuilder b;
  for (const query::SortField& field : sort.fields()) {
    b.AppendInt32(field.path.dotted(), field.ascending ? 1 : -1);
  }
  return std::move(b).Finish();
}

std::string QueryShape(bson::DocumentView filter, const query::SortSpec& sort,
                       bson::DocumentView projection) {
  std::string shape = FilterShape(filter);
  shape += "|s";
  shape += SortDocumentOf(sort).ToJson();
  shape += "|p";
  shape += projection.ToJson();
  return shape;
}

std::string ShapeHash(std::string_view text) {
  // FNV-1a: stable across runs and builds, which std::hash is not required to be.
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string hex(8, '0');
  for (int digit = 7; digit >= 0; --digit) {
    hex[digit] = kDigits[hash & 0xF];
    hash >>= 4;
  }
  return hex;
}

}  // namespace quarry::exec
