// Applying a parsed projection to a document: inclusion keeps the document's field order,
// exclusion copies all but the excluded paths; both descend into arrays of documents.
#include <algorithm>
#include <string>
#include <vector>

#include "query/projection/projection_internal.h"

namespace quarry::query {
namespace {

std::string Key(std::size_t index) { return std::to_string(index); }

// $slice: [skip, limit] or a limit (negative from the end). Non-arrays pass unchanged.
void AppendSliced(std::string_view key, bson::ValueView value, const ProjectionNode& node,
                  bson::DocumentBuilder* out) {
  if (value.type() != bson::Type::kArray) {
    out->Append(key, value);
    return;
  }
  std::vector<bson::ValueView> elements;
  for (const bson::Element& element : value.Document()) elements.push_back(element.value);
  const auto size = static_cast<std::int64_t>(elements.size());
  std::int64_t begin = 0;
  std::int64_t count = 0;
  if (node.slice_has_skip) {
    begin = node.slice_skip < 0 ? std::max<std::int64_t>(0, size + node.slice_skip)
                                : std::min(node.slice_skip, size);
    count = std::min(node.slice_limit, size - begin);
  } else if (node.slice_limit >= 0) {
    count = std::min(node.slice_limit, size);
  } else {
    begin = std::max<std::int64_t>(0, size + node.slice_limit);
    count = size - begin;
  }
  out->OpenArray(key);
  for (std::int64_t i = 0; i < count; ++i) {
    out->Append(Key(static_cast<std::size_t>(i)), elements[static_cast<std::size_t>(begin + i)]);
  }
  out->Close();
}

// The element at `index` of an array, or absent.
bson::ValueView ElementAt(bson::ValueView array, std::size_t index) {
  std::size_t position = 0;
  for (const bson::Element& element : array.Document()) {
    if (position++ == index) return element.value;
  }
  return bson::ValueView();
}

void IncludeArray(const ProjectionNode& node, bson::DocumentView array, ApplyContext* context,
                  bson::DocumentBuilder* out) {
  std::size_t next = 0;
  for (const bson::Element& element : array) {
    if (element.value.type() == bson::Type::kDocument) {
      out->OpenDocument(Key(next++));
      ApplyInclusion(node, element.value.Document(), context, out);
      out->Close();
    } else if (element.value.type() == bson::Type::kArray) {
      out->OpenArray(Key(next++));
      IncludeArray(node, element.value.Document(), context, out);
      out->Close();
    }
  }
}

void ExcludeArray(const ProjectionNode& node, bson::DocumentView array, ApplyContext* context,
                  bson::DocumentBuilder* out) {
  for (const bson::Element& element : array) {
    if (element.value.type() == bson::Type::kDocument) {
      out->OpenDocument(element.key);
      ApplyExclusion(node, element.value.Document(), context, out);
      out->Close();
    } else if (element.value.type() == bson::Type::kArray) {
      out->OpenArray(element.key);
      ExcludeArray(node, element.value.Document(), context, out);
      out->Close();
    } else {
      out->Append(element.key, element.value);
    }
  }
}

// Appends the computed fields below `node` alone, for a path the document does not have as a
// document (mongod creates it).
void AppendComputedOnly(const ProjectionNode& node, ApplyContext* context,
                        bson::DocumentBuilder* out) {
  for (const auto& [name, child] : node.children) {
    if (child->kind == ProjectionKind::kComputed) {
      Status status = child->computed->AppendTo(name, context->root, out);
      if (!status.ok() && context->status.ok()) context->status = status;
    } else if (child->kind == ProjectionKind::kPath && child->HasComputed()) {
      out->OpenDocument(name);
      AppendComputedOnly(*child, context, out);
      out->Close();
    }
  }
}

}  // namespace

void ApplyInclusion(const ProjectionNode& node, bson::DocumentView doc, ApplyContext* context,
                    bson::DocumentBuilder* out) {
  std::vector<std::string_view> descended;  // kPath children met as documents or arrays
  for (const bson::Element& element : doc) {
    const ProjectionNode* child = node.Find(element.key);
    if (child == nullptr) continue;
    switch (child->kind) {
      case ProjectionKind::kInclude:
        out->Append(element.key, element.value);
        break;
      case ProjectionKind::kExclude:
      case ProjectionKind::kComputed:
        break;
      case ProjectionKind::kSlice:
        AppendSliced(element.key, element.value, *child, out);
        break;
      case ProjectionKind::kElemMatch: {
        if (element.value.type() != bson::Type::kArray) break;
        MatchDetails details;
        if (child->elem_match->Matches(context->root, &details) &&
            details.array_index.has_value()) {
          bson::ValueView match = ElementAt(element.value, *details.array_index);
          if (match.exists()) out->OpenArray(element.key).Append("0", match).Close();
        }
        break;
      }
      case ProjectionKind::kPositional: {
        if (element.value.type() != bson::Type::kArray) {
          out->Append(element.key, element.value);
          break;
        }
        bson::ValueView match;
        if (context->details != nullptr && context->details->array_index.has_value()) {
          match = ElementAt(element.value, *context->details->array_index);
        }
        if (!match.exists()) {
          if (context->status.ok()) {
            context->status = Status(static_cast<ErrorCode>(51246),
                                     "Executor error during find command :: caused by :: "
                                     "positional operator '.$' couldn't find a matching "
                                     "element in the array");
          }
          break;
        }
        out->OpenArray(element.key).Append("0", match).Close();
        break;
      }
      case ProjectionKind::kPath:
        if (element.value.type() == bson::Type::kDocument) {
          out->OpenDocument(element.key);
          ApplyInclusion(*child, element.value.Document(), context, out);
          out->Close();
          descended.push_back(element.key);
        } else if (element.value.type() == bson::Type::kArray) {
          out->OpenArray(element.key);
          IncludeArray(*child, element.value.Document(), context, out);
          out->Close();
          descended.push_back(element.key);
        }
        break;
    }
  }
  // Computed fields follow the included ones, in projection order.
  for (const auto& [name, child] : node.children) {
    if (child->kind == ProjectionKind::kComputed) {
      Status status = child->computed->AppendTo(name, context->root, out);
      if (!status.ok() && context->status.ok()) context->status = status;
    } else if (child->kind == ProjectionKind::kPath && child->HasComputed() &&
               std::find(descended.begin(), descended.end(), name) == descended.end()) {
      out->OpenDocument(name);
      AppendComputedOnly(*child, context, out);
      out->Close();
    }
  }
}

void ApplyExclusion(const ProjectionNode& node, bson::DocumentView doc, ApplyContext* context,
                    bson::DocumentBuilder* out) {
  for (const bson::Element& element : doc) {
    const ProjectionNode* child = node.Find(element.key);
    if (child == nullptr) {
      out->Append(element.key, element.value);
      continue;
    }
    switch (child->kind) {
      case ProjectionKind::kExclude:
        break;
      case ProjectionKind::kSlice:
        AppendSliced(element.key, element.value, *child, out);
        break;
      case ProjectionKind::kPath:
        if (element.value.type() == bson::Type::kDocument) {
          out->OpenDocument(element.key);
          ApplyExclusion(*child, element.value.Document(), context, out);
          out->Close();
        } else if (element.value.type() == bson::Type::kArray) {
          out->OpenArray(element.key);
          ExcludeArray(*child, element.value.Document(), context, out);
          out->Close();
        } else {
          out->Append(element.key, element.value);
        }
        break;
      default:  // kInclude (_id), and kinds that exclusion mode never parses
        out->Append(element.key, element.value);
        break;
    }
  }
}

}  // namespace quarry::query
