// The entries of a text index: one per term of a document, keyed by the term and the term's
// score in the document, so that a search reads a term's documents with their scores.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "exec/index_descriptor.h"
#include "text/index_spec.h"

namespace quarry::exec {

// The key of `term` with `score`: the term's index key encoding, then the score's 8 bytes.
std::string TextIndexKey(std::string_view term, double score);
// The bytes every key of `term` starts with, and no other term's key.
std::string TextTermPrefix(std::string_view term);
// The score a key holds; 0 for a key too short to hold one.
double ScoreOfTextKey(std::string_view key);

// The keys of `doc` in the text index `spec` describes, sorted, one per term; none when it
// holds no term (a text index is sparse by nature).
StatusWith<DocumentKeys> TextKeysOf(const text::TextIndexSpec& spec, bson::DocumentView doc);

}  // namespace quarry::exec
