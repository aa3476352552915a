// Fuzzes $search's operators as a client sends them: the first byte chooses a queryString query
// (the rest of the input, Lucene's syntax) or a BSON operator document ({<operator>: <spec>}, the
// rest of the input once it validates); whatever parses is evaluated over a small index with
// analyzed, multi-analyzed (a custom analyzer making shingles too), embedded and whole values and
// geo points, with a synonym mapping "s", so parsing and evaluation meet inputs no unit test wrote.
#include <cstdint>
#include <memory>
#include <string_view>

#include "bson/builder.h"
#include "bson/json.h"
#include "bson/validate.h"
#include "text/custom_analyzer.h"
#include "text/inverted_index.h"
#include "text/search_analyzer.h"
#include "text/search_operator.h"
#include "text/synonyms.h"

namespace {

using quarry::text::FullTextField;
using quarry::text::FullTextMapping;
using quarry::text::InvertedIndex;

// A custom analyzer whose tokens split (wordDelimiterGraph), stack (keywordRepeat) and form a
// graph (shingles).
std::shared_ptr<const quarry::text::CustomAnalyzer> Shingles() {
  quarry::bson::Document spec = quarry::bson::FromJson(R"({"a": {"name": "shingles",
      "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "wordDelimiterGraph", "delimiterOptions": {"concatenateAll": true,
       "preserveOriginal": true}}, {"type": "lowercase"}, {"type": "keywordRepeat"},
      {"type": "porterStemming"}, {"type": "removeDuplicates"},
      {"type": "shingle", "minShingleSize": 2, "maxShingleSize": 3}]}})")
                                    .value();
  return quarry::text::ParseCustomAnalyzer(spec.view().Get("a"), "analyzers[0]").value();
}

FullTextMapping Mapping(const quarry::text::CustomAnalyzer& shingles) {
  FullTextMapping mapping;
  mapping.root.dynamic = true;
  FullTextField& title = mapping.root.fields["title"];
  title.is_string = true;
  title.multi["english"].is_string = true;
  title.multi["english"].analyzer = quarry::text::SearchAnalyzer::Find("lucene.english");
  title.multi["shingles"].is_string = true;
  title.multi["shingles"].analyzer = &shingles.analyzer();
  mapping.root.fields["code"].value_kinds = quarry::text::kTokenValues;
  mapping.root.fields["loc"].value_kinds = quarry::text::kGeoPoints;
  FullTextField item = quarry::text::DocumentField();
  item.dynamic = true;
  mapping.root.fields["items"].embedded = std::make_shared<const FullTextField>(item);
  mapping.LinkEmbedded();
  return mapping;
}

struct Fixture {
  std::shared_ptr<const quarry::text::CustomAnalyzer> shingles = Shingles();
  FullTextMapping mapping = Mapping(*shingles);
  InvertedIndex index;
  quarry::text::SynonymMaps synonyms;

  Fixture() {
    auto map =
        std::make_shared<quarry::text::SynonymMap>(&quarry::text::SearchAnalyzer::Standard());
    for (
        const char* json : {
            R"({"mappingType": "equivalent", "synonyms": ["captain", "skipper", "ship master"]})",
            R"({"mappingType": "explicit", "input": ["new york", "nyc"], "synonyms": ["big apple"]})",
        }) {
      quarry::bson::Document document = quarry::bson::FromJson(json).value();
      (void)map->Add(document.view());
    }
    synonyms["s"] = std::move(map);
    const char* documents[] = {
        R"({"title": "Captain Kirk plays chess", "plot": "the captain of a ship", "code": "A1",
            "year": 1990, "items": [{"name": "red apple", "qty": 3}, {"name": "pear"}],
            "loc": [{"type": "Point", "coordinates": [2.35, 48.86]},
                    {"type": "Point", "coordinates": [-179.9, -18]}]})",
        R"({"title": "Running men", "plot": ["New York", "stories of life"], "code": "b2",
            "year": 2001.5, "items": {"name": "apple pie"}})",
        R"({"title": "Ünïcode tîtle 東京", "plot": "", "meta": {"title": "star voyage"}})",
    };
    std::uint32_t label = 0;
    for (const char* json : documents) {
      quarry::bson::Document document = quarry::bson::FromJson(json).value();
      index.Set(label++, mapping, document.view());
    }
  }
};

const Fixture& TheFixture() {
  static const auto* fixture = new Fixture();
  return *fixture;
}

void Evaluate(const quarry::StatusWith<quarry::text::SearchOperator>& op) {
  if (!op.ok()) return;
  const Fixture& fixture = TheFixture();
  (void)quarry::text::EvaluateSearch(op.value(), fixture.index, fixture.mapping, nullptr,
                                     &fixture.synonyms);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* rest = reinterpret_cast<const char*>(data) + 1;
  const std::size_t rest_size = size - 1;
  if (data[0] % 2 == 0) {
    quarry::bson::DocumentBuilder spec;
    spec.AppendString("defaultPath", "plot");
    spec.AppendString("query", std::string_view(rest, rest_size));
    quarry::bson::DocumentBuilder holder;
    holder.AppendDocument("queryString", std::move(spec).Finish().view());
    const quarry::bson::Document document = std::move(holder).Finish();
    Evaluate(quarry::text::ParseSearchOperator("queryString", document.view().Get("queryString")));
    return 0;
  }
  if (!quarry::bson::Validate(rest, rest_size).ok()) return 0;
  const quarry::bson::DocumentView operator_document(rest);
  for (const quarry::bson::Element& e : operator_document) {
    Evaluate(quarry::text::ParseSearchOperator(e.key, e.value));
  }
  return 0;
}
