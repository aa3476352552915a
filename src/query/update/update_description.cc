// DescribeUpdate: the difference between two versions of a document, in the shape of a change
// stream's updateDescription (updatedFields, removedFields, truncatedArrays).
#include "query/update/update.h"
#include "query/value/value.h"

namespace quarry::query {
namespace {

using bson::Type;

struct DiffState {
  bson::DocumentBuilder updated;
  UpdateDescription* out;
};

std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

void DiffDocuments(bson::DocumentView before, bson::DocumentView after, const std::string& prefix,
                   DiffState* state);

void DiffValues(bson::ValueView before, bson::ValueView after, const std::string& path,
                DiffState* state) {
  if (BinaryEqual(before, after)) return;
  if (before.type() == Type::kDocument && after.type() == Type::kDocument) {
    DiffDocuments(before.Document(), after.Document(), path, state);
    return;
  }
  if (before.type() == Type::kArray && after.type() == Type::kArray) {
    std::vector<bson::ValueView> old_elements;
    for (const bson::Element& e : before.Document()) old_elements.push_back(e.value);
    std::size_t index = 0;
    for (const bson::Element& e : after.Document()) {
      const std::string element_path = path + "." + std::to_string(index);
      if (index < old_elements.size()) {
        DiffValues(old_elements[index], e.value, element_path, state);
      } else {
        state->updated.Append(element_path, e.value);
      }
      ++index;
    }
    if (index < old_elements.size()) {
      state->out->truncated_arrays.emplace_back(path, static_cast<std::int64_t>(index));
    }
    return;
  }
  state->updated.Append(path, after);
}

void DiffDocuments(bson::DocumentView before, bson::DocumentView after, const std::string& prefix,
                   DiffState* state) {
  for (const bson::Element& e : after) {
    const std::string path = Join(prefix, e.key);
    bson::ValueView old_value = before.Get(e.key);
    if (!old_value.exists()) {
      state->updated.Append(path, e.value);
    } else {
      DiffValues(old_value, e.value, path, state);
    }
  }
  for (const bson::Element& e : before) {
    if (!after.Has(e.key)) state->out->removed_fields.push_back(Join(prefix, e.key));
  }
}

}  // namespace

UpdateDescription DescribeUpdate(bson::DocumentView before, bson::DocumentView after) {
  UpdateDescription description;
  DiffState state{bson::DocumentBuilder(), &description};
  DiffDocuments(before, after, "", &state);
  description.updated_fields = std::move(state.updated).Finish();
  return description;
}

}  // namespace quarry::query
