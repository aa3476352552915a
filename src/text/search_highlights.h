// $search's highlight option: the passages of a matched document's strings that hold the
// terms its query searched for, as {$meta: "searchHighlights"} gives them:
// [{path, texts: [{value, type: "hit" | "text"}, ...], score}, ...].
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/full_text_mapping.h"
#include "text/search_operator.h"

namespace quarry::text {

struct HighlightSpec {
  std::vector<std::string> paths;  // may hold '*' wildcards
  std::size_t max_chars_to_examine = 500000;
  std::size_t max_passages = 5;  // per path
};

// Parses highlight's argument: {path, maxCharsToExamine, maxNumPassages}. BadValue names what
// is wrong.
StatusWith<HighlightSpec> ParseHighlight(bson::ValueView spec);

// The highlights of `document` (an array): for each path the spec names, in the order the
// document holds them, its best passages first (at most max_passages). A passage is a sentence (by
// ICU's sentence boundaries) of one string value holding a term the text, phrase or fuzzy text
// operators of `op` searched for on that path (mustNot clauses and other operators highlight
// nothing); its score weighs how often and how early the terms occur, as Lucene's passage scorer
// does.
bson::Document Highlights(const SearchOperator& op, const FullTextMapping& mapping,
                          const HighlightSpec& spec, bson::DocumentView document);

}  // namespace quarry::text
