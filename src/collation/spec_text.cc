#include "collation/spec_text.h"

namespace quarry::collation {
namespace {

void AppendValue(bson::ValueView value, std::string* out) {
  switch (value.type()) {
    case bson::Type::kString:
      out->push_back('"');
      for (char c : value.String()) {
        if (c == '"' || c == '\\') out->push_back('\\');
        out->push_back(c);
      }
      out->push_back('"');
      return;
    case bson::Type::kBool:
      out->append(value.Bool() ? "true" : "false");
      return;
    case bson::Type::kInt32:
    case bson::Type::kInt64:
      out->append(std::to_string(value.AsInt64()));
      return;
    case bson::Type::kDocument:
      out->append(SpecText(value.Document()));
      return;
    default:
      out->append(value.ToJson());
      return;
  }
}

}  // namespace

std::string SpecText(bson::DocumentView spec) {
  if (spec.empty()) return "{}";
  std::string out = "{ ";
  bool first = true;
  for (const bson::Element& e : spec) {
    if (!first) out.append(", ");
    first = false;
    out.append(e.key);
    out.append(": ");
    AppendValue(e.value, &out);
  }
  out.append(" }");
  return out;
}

}  // namespace quarry::collation
