#include "text/synonyms.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace quarry::text {
namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

bool Blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  });
}

}  // namespace

StatusWith<TokenSequence> SynonymMap::Analyzed(bson::ValueView value,
                                               std::string_view field) const {
  if (value.type() != bson::Type::kString || Blank(value.String())) {
    return Bad("\"" + std::string(field) + "\" must hold strings that are not blank");
  }
  TokenSequence tokens;
  bool gap = false;
  analyzer_->Analyze(value.String(), [&](std::string_view term, std::uint32_t position) {
    if (position != tokens.size()) gap = true;
    tokens.emplace_back(term);
  });
  const std::string quoted = "\"" + std::string(value.String()) + "\"";
  if (tokens.empty()) {
    return Bad(quoted + " in \"" + std::string(field) + "\" analyzes to no token with " +
               std::string(analyzer_->name()));
  }
  // Lucene's synonym parser takes only tokens one position apart: no dropped stop word.
  if (gap) {
    return Bad(quoted + " in \"" + std::string(field) + "\" analyzes to tokens with a gap with " +
               std::string(analyzer_->name()) + " (a stop word)");
  }
  return tokens;
}

Status SynonymMap::Add(bson::DocumentView document) {
  bson::ValueView type = document.Get("mappingType");
  if (type.type() != bson::Type::kString ||
      (type.String() != "equivalent" && type.String() != "explicit")) {
    return Bad("\"mappingType\" must be \"equivalent\" or \"explicit\"");
  }
  const bool explicit_mapping = type.String() == "explicit";
  auto read = [&](std::string_view field) -> StatusWith<std::vector<TokenSequence>> {
    bson::ValueView list = document.Get(field);
    if (list.type() != bson::Type::kArray || list.Document().empty()) {
      return Bad("\"" + std::string(field) + "\" must be a non-empty array of strings");
    }
    std::vector<TokenSequence> out;
    for (const bson::Element& e : list.Document()) {
      QUARRY_ASSIGN_OR_RETURN(TokenSequence tokens, Analyzed(e.value, field));
      out.push_back(std::move(tokens));
    }
    return out;
  };
  QUARRY_ASSIGN_OR_RETURN(const std::vector<TokenSequence> synonyms, read("synonyms"));
  std::vector<TokenSequence> inputs = synonyms;
  if (explicit_mapping) {
    QUARRY_ASSIGN_OR_RETURN(inputs, read("input"));
  }
  for (const TokenSequence& input : inputs) {
    for (const TokenSequence& output : synonyms) Map(input, output);
  }
  return Status::OK();
}

void SynonymMap::Map(const TokenSequence& input, const TokenSequence& output) {
  std::vector<TokenSequence>& outputs = outputs_[input];
  if (std::find(outputs.begin(), outputs.end(), output) == outputs.end()) {
    outputs.push_back(output);
  }
  longest_input_ = std::max(longest_input_, input.size());
}

std::vector<SynonymSegment> SynonymMap::Expand(const std::vector<std::string>& tokens) const {
  std::vector<SynonymSegment> segments;
  std::size_t i = 0;
  while (i < tokens.size()) {
    std::size_t length = std::min(longest_input_, tokens.size() - i);
    for (; length > 0; --length) {
      TokenSequence input(tokens.begin() + static_cast<std::ptrdiff_t>(i),
                          tokens.begin() + static_cast<std::ptrdiff_t>(i + length));
      auto found = outputs_.find(input);
      if (found == outputs_.end()) continue;
      SynonymSegment segment;
      segment.paths.push_back(std::move(input));
      segment.paths.insert(segment.paths.end(), found->second.begin(), found->second.end());
      segments.push_back(std::move(segment));
      break;
    }
    if (length == 0) {
      segments.push_back(SynonymSegment{.paths = {{tokens[i]}}});
      length = 1;
    }
    i += length;
  }
  return segments;
}

}  // namespace quarry::text
