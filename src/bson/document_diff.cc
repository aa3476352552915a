#include "bson/document_diff.h"

#include "bson/builder.h"
#include "bson/compare.h"

namespace quarry::bson {
namespace {

struct DiffState {
  DocumentBuilder updated;
  DocumentDiff* out;
};

std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

void DiffFields(DocumentView before, DocumentView after, const std::string& prefix,
                DiffState* state);

void DiffValues(ValueView before, ValueView after, const std::string& path, DiffState* state) {
  if (BinaryEqual(before, after)) return;
  if (before.type() == Type::kDocument && after.type() == Type::kDocument) {
    DiffFields(before.Document(), after.Document(), path, state);
    return;
  }
  if (before.type() == Type::kArray && after.type() == Type::kArray) {
    std::vector<ValueView> old_elements;
    for (const Element& e : before.Document()) old_elements.push_back(e.value);
    std::size_t index = 0;
    for (const Element& e : after.Document()) {
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

void DiffFields(DocumentView before, DocumentView after, const std::string& prefix,
                DiffState* state) {
  // Updates keep the fields' order, so the versions are walked side by side, and a field is
  // looked up by name only once the orders part; a path is built only for a field that changed.
  auto old_field = before.begin();
  const auto old_end = before.end();
  bool in_step = true;
  for (const Element& e : after) {
    ValueView old_value;
    if (in_step && old_field != old_end && old_field->key == e.key) {
      old_value = old_field->value;
      ++old_field;
    } else {
      // Fields added after every old one keep the walk in step: nothing old is left to remove.
      if (old_field != old_end) in_step = false;
      old_value = before.Get(e.key);
    }
    if (!old_value.exists()) {
      state->updated.Append(Join(prefix, e.key), e.value);
    } else if (!BinaryEqual(old_value, e.value)) {
      DiffValues(old_value, e.value, Join(prefix, e.key), state);
    }
  }
  if (in_step) {
    for (; old_field != old_end; ++old_field) {
      if (!after.Has(old_field->key)) {
        state->out->removed_fields.push_back(Join(prefix, old_field->key));
      }
    }
    return;
  }
  for (const Element& e : before) {
    if (!after.Has(e.key)) state->out->removed_fields.push_back(Join(prefix, e.key));
  }
}

}  // namespace

DocumentDiff DiffDocuments(DocumentView before, DocumentView after) {
  DocumentDiff diff;
  DiffState state{DocumentBuilder(), &diff};
  DiffFields(before, after, "", &state);
  diff.updated_fields = std::move(state.updated).Finish();
  return diff;
}

Document DiffAsDocument(const DocumentDiff& diff) {
  DocumentBuilder b(diff.updated_fields.size() + 64);
  b.AppendDocument("u", diff.updated_fields);
  if (!diff.removed_fields.empty()) {
    b.OpenArray("r");
    for (std::size_t field_idx = 0; field_idx < diff.removed_fields.size(); ++field_idx) {
      b.AppendString(std::to_string(field_idx), diff.removed_fields[field_idx]);
    }
    b.Close();
  }
  if (!diff.truncated_arrays.empty()) {
    b.OpenArray("t");
    for (std::size_t array_idx = 0; array_idx < diff.truncated_arrays.size(); ++array_idx) {
      const auto& [field, new_size] = diff.truncated_arrays[array_idx];
      b.OpenDocument(std::to_string(array_idx));
      b.AppendString("field", field);
      b.AppendInt64("newSize", new_size);
      b.Close();
    }
    b.Close();
  }
  return std::move(b).Finish();
}

DocumentDiff DiffFromDocument(DocumentView logged) {
  DocumentDiff diff;
  const ValueView updated = logged.Get("u");
  if (updated.type() == Type::kDocument) diff.updated_fields = Document::Copy(updated.Document());
  const ValueView removed = logged.Get("r");
  if (removed.type() == Type::kArray) {
    for (const Element& e : removed.Document()) {
      if (e.value.type() == Type::kString) diff.removed_fields.emplace_back(e.value.String());
    }
  }
  const ValueView truncated = logged.Get("t");
  if (truncated.type() == Type::kArray) {
    for (const Element& e : truncated.Document()) {
      if (e.value.type() != Type::kDocument) continue;
      const ValueView field = e.value.Document().Get("field");
      const ValueView new_size = e.value.Document().Get("newSize");
      if (field.type() == Type::kString && new_size.IsIntegral()) {
        diff.truncated_arrays.emplace_back(std::string(field.String()), new_size.AsInt64());
      }
    }
  }
  return diff;
}

}  // namespace quarry::bson
