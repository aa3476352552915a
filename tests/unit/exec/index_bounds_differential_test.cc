// The promise index bounds keep: on random documents and filters, every document a filter
// matches has a key inside the bounds BoundsFor gives for it, whatever arrays, missing fields,
// mixed types and positional paths the document holds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "exec/index_bounds.h"
#include "index_test_util.h"

namespace quarry::exec {
namespace {

using testing::ExpectWellFormed;
using testing::Index;

// Documents with fields a, b and x (each missing one time in five) holding scalars, arrays (empty,
// nested) and sub-documents with fields a, b, "0" and "1" (numeric names meet positional paths);
// filters of one or two conditions on paths through them.
class RandomData {
 public:
  explicit RandomData(std::uint64_t seed) : rng_(seed) {}

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  bson::Document Document(int id) {
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    for (const char* field : {"a", "b", "x"}) {
      if (Pick(5) != 0) AppendValue(&b, field, 0);
    }
    return std::move(b).Finish();
  }

  // A scalar a filter may compare with: numbers of all three types, strings, null, booleans,
  // dates, MinKey and MaxKey.
  static constexpr const char* kOps[] = {"$eq", "$lt", "$lte", "$gt", "$gte"};

  void AppendScalar(bson::DocumentBuilder* b, std::string_view key) {
    static const double kDoubles[] = {-1.5,
                                      0.0,
                                      -0.0,
                                      1.0,
                                      2.5,
                                      std::nan(""),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};
    static const char* kStrings[] = {"", "a", "ab", "abc", "abd", "b", "m", "z", "\xC3\xA9"};
    switch (Pick(12)) {
      case 0:
      case 1:
        b->AppendInt32(key, Pick(7) - 3);
        return;
      case 2:
        b->AppendInt64(key, Pick(7) - 3);
        return;
      case 3:
        b->AppendDouble(key, kDoubles[Pick(8)]);
        return;
      case 4:
      case 5:
        b->AppendString(key, kStrings[Pick(9)]);
        return;
      case 6:
        b->AppendNull(key);
        return;
      case 7:
        b->AppendBool(key, Pick(2) == 0);
        return;
      case 8:
        b->AppendDate(key, Pick(3) * 1000 - 1000);
        return;
      case 9:
        if (Pick(2) == 0) {
          b->AppendMinKey(key);
        } else {
          b->AppendMaxKey(key);
        }
        return;
      default:
        b->AppendInt32(key, Pick(3));
        return;
    }
  }

  void AppendValue(bson::DocumentBuilder* b, std::string_view key, int depth) {
    const int kind = depth >= 3 ? 0 : Pick(8);
    if (kind <= 4) {
      if (Pick(30) == 0) {
        b->AppendUndefined(key);
      } else {
        AppendScalar(b, key);
      }
    } else if (kind <= 6) {
      b->OpenArray(key);
      const int length = Pick(4);
      for (int element_idx = 0; element_idx < length; ++element_idx) {
        AppendValue(b, std::to_string(element_idx), depth + 1);
      }
      b->Close();
    } else {
      b->OpenDocument(key);
      for (const char* field : {"a", "b", "0", "1"}) {
        if (Pick(3) != 0) AppendValue(b, field, depth + 1);
      }
      b->Close();
    }
  }

  // A filter of one or two simple conditions.
  bson::Document Filter() {
    static const char* kPaths[] = {"a",   "b",     "x",   "x.a", "x.b",   "a.a",
                                   "a.0", "a.0.a", "x.0", "a.1", "x.1.b", "a.a.a"};
    bson::DocumentBuilder b;
    b.OpenArray("$and");
    const int conditions = 1 + Pick(2);
    std::string_view path = kPaths[Pick(12)];
    for (int condition_idx = 0; condition_idx < conditions; ++condition_idx) {
      b.OpenDocument(std::to_string(condition_idx));
      AppendCondition(&b, path);
      b.Close();
      // Half the time, two conditions on one path, which bounds intersect.
      if (Pick(2) == 0) path = kPaths[Pick(12)];
    }
    b.Close();
    return std::move(b).Finish();
  }

 private:
  // A condition on `path`; with `operators_only`, `path` is an operator ($in, $gt...) and the
  // condition its operand.
  void AppendCondition(bson::DocumentBuilder* b, std::string_view path,
                       bool operators_only = false) {
    if (operators_only) {
      if (path != "$nin") {
        AppendScalar(b, path);
        return;
      }
      b->OpenArray(path);
      const int length = Pick(4);
      for (int element_idx = 0; element_idx < length; ++element_idx) {
        // Now and then an empty array: {$nin: [null, []]} is one mongod bounds.
        if (Pick(5) == 0) {
          b->OpenArray(std::to_string(element_idx)).Close();
        } else {
          AppendScalar(b, std::to_string(element_idx));
        }
      }
      b->Close();
      return;
    }
    static const char* kPatterns[] = {"^ab", "^a", "b", "^\xC3\xA9", "^a.c", "^abc$"};
    switch (Pick(13)) {
      case 0:
        AppendScalar(b, path);
        return;
      case 7:  // $ne, $nin, or $not of a comparison or $in
        b->OpenDocument(path);
        if (Pick(3) == 0) {
          AppendScalar(b, "$ne");
        } else {
          const bool nin = Pick(2) == 0;
          if (!nin) b->OpenDocument("$not");
          AppendCondition(b, nin ? "$nin" : kOps[Pick(5)], /*operators_only=*/true);
          if (!nin) b->Close();
        }
        b->Close();
        return;
      case 8:
        b->OpenDocument(path).AppendBool("$exists", Pick(2) == 0).Close();
        return;
      case 9:  // $elemMatch on values: one to three operators, negations among them
        b->OpenDocument(path).OpenDocument("$elemMatch");
        for (int op_idx = Pick(3); op_idx >= 0; --op_idx) {
          if (Pick(4) == 0) {
            AppendScalar(b, "$ne");
          } else {
            AppendScalar(b, kOps[Pick(5)]);
          }
        }
        b->Close().Close();
        return;
      case 10: {  // $elemMatch on documents, with conditions on their fields
        static const char* kFields[] = {"a", "b", "0", "a.b"};
        b->OpenDocument(path).OpenDocument("$elemMatch");
        for (int field_idx = Pick(2); field_idx >= 0; --field_idx) {
          AppendCondition(b, kFields[Pick(4)]);
        }
        b->Close().Close();
        return;
      }
      case 1: {  // an equality to an array or a document
        if (Pick(2) == 0) {
          b->OpenArray(path);
          const int length = Pick(3);
          for (int element_idx = 0; element_idx < length; ++element_idx) {
            AppendScalar(b, std::to_string(element_idx));
          }
        } else {
          b->OpenDocument(path);
          AppendScalar(b, "a");
        }
        b->Close();
        return;
      }
      case 2: {
        b->OpenDocument(path).OpenArray("$in");
        const int length = Pick(4);
        for (int element_idx = 0; element_idx < length; ++element_idx) {
          AppendScalar(b, std::to_string(element_idx));
        }
        b->Close().Close();
        return;
      }
      case 3:
        b->AppendRegex(path, kPatterns[Pick(6)], Pick(4) == 0 ? "i" : "");
        return;
      default:
        b->OpenDocument(path);
        AppendScalar(b, kOps[Pick(5)]);
        b->Close();
        return;
    }
  }

  std::mt19937_64 rng_;
};

TEST(IndexBoundsTest, BoundsNeverLoseAMatchingDocument) {
  RandomData random(20250611);
  std::vector<bson::Document> docs;
  for (int doc_idx = 0; doc_idx < 400; ++doc_idx) docs.push_back(random.Document(doc_idx));
  const std::vector<IndexDescriptor> indexes = {
      Index(R"({"a": 1})"),
      Index(R"({"a": -1})"),
      Index(R"({"x.a": 1})"),
      Index(R"({"a.0": 1})"),
      Index(R"({"x": 1})"),
      Index(R"({"a": 1, "b": 1})"),
      Index(R"({"a": 1, "b": -1})"),
      Index(R"({"b": -1, "a": 1})"),
      Index(R"({"x.a": 1, "x.b": -1})"),
      Index(R"({"a": 1, "x.b": 1})"),
      Index(R"({"a": 1})", R"({"sparse": true})"),
      Index(R"({"a": 1, "b": 1})", R"({"sparse": true})"),
      Index(R"({"a.0.a": 1})"),
      Index(R"({"x.0": -1})"),
      Index(R"({"a.1": 1, "b": 1})"),
      Index(R"({"x.1.b": 1})"),
      Index(R"({"a.a.a": 1})"),
      Index(R"({"x.0": 1})", R"({"sparse": true})"),
      Index(R"({"b": 1, "a.0": 1})"),
      Index(R"({"a.a": 1, "x": 1})"),
  };
  // Each document's keys in each index; documents the index cannot hold (parallel arrays) are
  // left out, as a collection with that index cannot hold them.
  // Whether each document makes each index multikey: bounds for a non-multikey index must
  // read every matching document that is not.
  std::vector<std::vector<std::optional<std::vector<IndexKey>>>> keys(indexes.size());
  std::vector<std::vector<bool>> multikey(indexes.size());
  for (std::size_t index_idx = 0; index_idx < indexes.size(); ++index_idx) {
    for (const bson::Document& doc : docs) {
      StatusWith<DocumentKeys> doc_keys = indexes[index_idx].KeysAndMultikeyOf(doc);
      multikey[index_idx].push_back(doc_keys.ok() && doc_keys.value().multikey);
      keys[index_idx].push_back(doc_keys.ok() ? std::optional(std::move(doc_keys).value().keys)
                                              : std::nullopt);
    }
  }
  int bounded_filters = 0;
  int checked_matches = 0;
  int failures = 0;
  for (int filter_idx = 0; filter_idx < 1000 && failures < 5; ++filter_idx) {
    const bson::Document filter_doc = random.Filter();
    StatusWith<query::Matcher> filter = query::Matcher::Parse(filter_doc);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString() << " " << filter_doc.ToJson();
    for (std::size_t check = 0; check < 2 * indexes.size() && failures < 5; ++check) {
      const std::size_t index_idx = check / 2;
      const bool index_multikey = check % 2 == 0;
      std::optional<IndexBounds> bounds =
          BoundsFor(indexes[index_idx], filter.value(), index_multikey);
      if (!bounds.has_value()) continue;
      ++bounded_filters;
      ExpectWellFormed(*bounds);
      for (std::size_t doc_idx = 0; doc_idx < docs.size(); ++doc_idx) {
        if (!keys[index_idx][doc_idx].has_value() || !filter.value().Matches(docs[doc_idx]) ||
            (!index_multikey && multikey[index_idx][doc_idx])) {
          continue;
        }
        ++checked_matches;
        bool read = false;
        for (const IndexKey& key : *keys[index_idx][doc_idx]) {
          for (const KeyInterval& interval : bounds->intervals) {
            if (interval.Contains(key.encoded)) read = true;
          }
        }
        if (!read) {
          ++failures;
          ADD_FAILURE() << "bounds " << bounds->ToExplain().ToJson() << " of "
                        << (index_multikey ? "multikey" : "non-multikey") << " index "
                        << indexes[index_idx].key_pattern().ToJson() << " for filter "
                        << filter_doc.ToJson() << " lose " << docs[doc_idx].ToJson();
        }
      }
    }
  }
  EXPECT_GT(bounded_filters, 1000);
  EXPECT_GT(checked_matches, 5000);
}

}  // namespace
}  // namespace quarry::exec
