// Atlas Search's synonym mappings: the documents of a synonym source collection (equivalent and
// explicit mappings), analyzed into a map from token sequences to the sequences that may stand
// for them, and a query's tokens expanded as Lucene's SynonymGraphFilter expands them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/search_analyzer.h"

namespace quarry::text {

using TokenSequence = std::vector<std::string>;

// A stretch of a query's tokens and the sequences that may stand in its place: the original
// tokens first, then each synonym (duplicates of the original kept, as Lucene keeps them).
struct SynonymSegment {
  std::vector<TokenSequence> paths;
};

class SynonymMap {
 public:
  explicit SynonymMap(const SearchAnalyzer* analyzer) : analyzer_(analyzer) {}

  // Adds one source document: {mappingType: "equivalent", synonyms: [...]} (each stands for
  // every other) or {mappingType: "explicit", input: [...], synonyms: [...]} (the synonyms stand
  // for each input); other fields are ignored. BadValue when it is malformed or one of its
  // strings analyzes to no token or to tokens with a gap.
  Status Add(bson::DocumentView document);

  bool empty() const { return outputs_.empty(); }
  const SearchAnalyzer& analyzer() const { return *analyzer_; }

  // `tokens` in segments: at each position the longest input the map holds, with its
  // synonyms; a token no input starts with is a segment of its own.
  std::vector<SynonymSegment> Expand(const std::vector<std::string>& tokens) const;

 private:
  StatusWith<TokenSequence> Analyzed(bson::ValueView value, std::string_view field) const;
  void Map(const TokenSequence& input, const TokenSequence& output);

  const SearchAnalyzer* analyzer_;
  // input -> its synonyms, each once, in the order first added.
  std::map<TokenSequence, std::vector<TokenSequence>> outputs_;
  std::size_t longest_input_ = 0;
};

// A search's synonym mappings by name.
using SynonymMaps = std::map<std::string, std::shared_ptr<const SynonymMap>, std::less<>>;

}  // namespace quarry::text
