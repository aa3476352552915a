#include "exec/key_values.h"

#include <string>
#include <utility>
#include <vector>

#include "bson/builder.h"

namespace quarry::exec {
namespace {

struct PathValue {
  std::string_view rest;  // of the field's path, below the level being built
  bson::ValueView value;
};

// Appends to `b` the fields `values` name, grouping paths that share their first component
// into one subdocument, in the order the key pattern first names each.
void AppendNested(std::vector<PathValue> values, bson::DocumentBuilder* b) {
  std::vector<bool> done(values.size(), false);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (done[i]) continue;
    const std::string_view head = values[i].rest.substr(0, values[i].rest.find('.'));
    if (head.size() == values[i].rest.size()) {
      b->Append(head, values[i].value);
      continue;
    }
    std::vector<PathValue> below;
    for (std::size_t j = i; j < values.size(); ++j) {
      const std::string_view rest = values[j].rest;
      if (done[j] || !rest.starts_with(head) || rest.size() <= head.size() ||
          rest[head.size()] != '.') {
        continue;
      }
      done[j] = true;
      below.push_back({rest.substr(head.size() + 1), values[j].value});
    }
    b->OpenDocument(head);
    AppendNested(std::move(below), b);
    b->Close();
  }
}

}  // namespace

std::optional<bson::Document> KeyDocument(const IndexDescriptor& index,
                                          std::string_view key_values) {
  if (key_values.empty()) return std::nullopt;
  const bson::DocumentView values(key_values.data());
  std::vector<PathValue> present;
  std::size_t position = 0;
  for (const IndexField& field : index.fields()) {
    const bson::ValueView value = values.Get(std::to_string(position++));
    if (value.exists()) present.push_back({field.path, value});
  }
  bson::DocumentBuilder b;
  AppendNested(std::move(present), &b);
  return std::move(b).Finish();
}

}  // namespace quarry::exec
