// Helpers for the index key and bounds tests: descriptors from a key pattern in JSON, and the
// shape every IndexBounds must have.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "bson/builder.h"
#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"
#include "exec_test_util.h"

namespace quarry::exec::testing {

// The index {v: 2, key: <key_json>, name: "test", <options_json's fields>}, parsed; an index on
// "unparsed" (failing the test) when it does not parse.
inline IndexDescriptor Index(std::string_view key_json, std::string_view options_json = "{}") {
  bson::DocumentBuilder spec;
  spec.AppendInt32("v", 2);
  spec.AppendDocument("key", Doc(key_json));
  spec.AppendString("name", "test");
  spec.AppendElements(Doc(options_json));
  StatusWith<IndexDescriptor> index = IndexDescriptor::Parse(std::move(spec).Finish(), 7);
  EXPECT_TRUE(index.ok()) << index.status().ToString() << " for " << key_json << options_json;
  if (index.ok()) return std::move(index).value();
  return IndexDescriptor::Parse(Doc(R"({"key": {"unparsed": 1}, "name": "unparsed"})"), 7).value();
}

// Sorted, disjoint, non-empty [start, end) intervals.
inline void ExpectWellFormed(const IndexBounds& bounds) {
  for (std::size_t interval_idx = 0; interval_idx < bounds.intervals.size(); ++interval_idx) {
    const KeyInterval& interval = bounds.intervals[interval_idx];
    EXPECT_TRUE(interval.start_inclusive);
    EXPECT_FALSE(interval.end_inclusive);
    EXPECT_LT(interval.start, interval.end);
    if (interval_idx > 0) {
      EXPECT_LE(bounds.intervals[interval_idx - 1].end, interval.start);
    }
  }
}

}  // namespace quarry::exec::testing
