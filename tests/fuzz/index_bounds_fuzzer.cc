// Index bounds never lose a matching document: documents, an index and a filter drawn from the
// input bytes (tests/unit/exec/index_bounds_property.h), checked as the unit test checks its
// fixed seeds, so that a long run explores filters and documents no fixed seed reaches.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bson/json.h"
#include "index_bounds_property.h"

namespace {

using quarry::bson::Document;
using quarry::exec::IndexDescriptor;

IndexDescriptor Parse(const char* key_json, const char* options_json) {
  quarry::bson::DocumentBuilder spec;
  spec.AppendInt32("v", 2);
  spec.AppendDocument("key", quarry::bson::FromJson(key_json).value());
  spec.AppendString("name", "fuzzed");
  spec.AppendElements(quarry::bson::FromJson(options_json).value());
  return IndexDescriptor::Parse(std::move(spec).Finish(), 7).value();
}

const std::vector<IndexDescriptor>& Indexes() {
  static const auto* indexes = [] {
    auto* parsed = new std::vector<IndexDescriptor>;
    for (const auto& [key, options] : quarry::exec::testing::kBoundsTestIndexes) {
      parsed->push_back(Parse(key, options));
    }
    return parsed;
  }();
  return *indexes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  quarry::exec::testing::RandomIndexData random(
      [&input](int n) { return input.ConsumeIntegralInRange<int>(0, n - 1); });
  const std::vector<IndexDescriptor>& indexes = Indexes();
  const IndexDescriptor& index = indexes[random.Pick(static_cast<int>(indexes.size()))];
  const bool index_multikey = random.Pick(2) == 0;
  const Document filter_doc = random.Filter();
  std::vector<Document> docs;
  for (int doc_idx = random.Pick(16); doc_idx >= 0; --doc_idx) {
    docs.push_back(random.Document(doc_idx));
  }
  auto filter = quarry::query::Matcher::Parse(filter_doc);
  // Every generated filter is valid: one that does not parse is a bug in the matcher.
  if (!filter.ok()) {
    std::fprintf(stderr, "%s does not parse: %s\n", filter_doc.ToJson().c_str(),
                 filter.status().ToString().c_str());
    std::abort();
  }
  std::optional<quarry::exec::IndexBounds> bounds =
      quarry::exec::BoundsFor(index, filter.value(), index_multikey);
  if (!bounds.has_value()) return 0;
  for (const Document& doc : docs) {
    std::optional<std::string> lost =
        quarry::exec::testing::LostMatch(index, index_multikey, *bounds, filter_doc, filter.value(),
                                         doc, quarry::exec::testing::KeysIn(index, doc));
    if (lost.has_value()) {
      std::fprintf(stderr, "%s\n", lost->c_str());
      std::abort();
    }
  }
  return 0;
}
