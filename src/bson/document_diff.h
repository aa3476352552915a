// The difference between two versions of a document, in the shape of a change stream's
// updateDescription: fields set (dotted paths, array elements as "a.3"), fields removed, and
// arrays shortened. Writers log it with an update, and change streams report it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bson/value.h"

namespace quarry::bson {

struct DocumentDiff {
  Document updated_fields;  // {"a.b": <new value>, ...}
  std::vector<std::string> removed_fields;
  std::vector<std::pair<std::string, std::int64_t>> truncated_arrays;  // field, new size
};

// What changed from `before` to `after`: values that differ (documents compared field by field,
// arrays element by element), fields `after` adds, fields it lacks, and arrays it shortens.
DocumentDiff DiffDocuments(DocumentView before, DocumentView after);

// A diff as a document, {u: <updated fields>, r?: [<removed path>...], t?: [{field, newSize}...]}
// (how the oplog logs it), and back; reading skips parts of another type.
Document DiffAsDocument(const DocumentDiff& diff);
DocumentDiff DiffFromDocument(DocumentView logged);

}  // namespace quarry::bson
