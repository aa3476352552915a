// What the index-bounds property tests share (the unit test's fixed seeds and the fuzzer's
// inputs): random documents and filters, the indexes they are tried on, and the property
// itself: every document a filter matches has a key inside the bounds BoundsFor gives for it.
// Free of GoogleTest, so the fuzzer can use it.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"
#include "query/match/matcher.h"

namespace quarry::exec::testing {

// Documents with fields a, b and x (each missing one time in five) holding scalars, arrays (empty,
// nested) and sub-documents with fields a, b, "0" and "1" (numeric names meet positional paths);
// filters of one or two conditions on paths through them.
class RandomIndexData {
 public:
  // `pick(n)` chooses a number in [0, n): from a seeded generator in the unit test, from the
  // input bytes in the fuzzer.
  explicit RandomIndexData(std::function<int(int)> pick) : pick_(std::move(pick)) {}

  int Pick(int n) { return pick_(n); }

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

  std::function<int(int)> pick_;
};

// The indexes the property is checked on: {key pattern, options} in JSON.
inline constexpr std::pair<const char*, const char*> kBoundsTestIndexes[] = {
    {R"({"a": 1})", "{}"},
    {R"({"a": -1})", "{}"},
    {R"({"x.a": 1})", "{}"},
    {R"({"a.0": 1})", "{}"},
    {R"({"x": 1})", "{}"},
    {R"({"a": 1, "b": 1})", "{}"},
    {R"({"a": 1, "b": -1})", "{}"},
    {R"({"b": -1, "a": 1})", "{}"},
    {R"({"x.a": 1, "x.b": -1})", "{}"},
    {R"({"a": 1, "x.b": 1})", "{}"},
    {R"({"a": 1})", R"({"sparse": true})"},
    {R"({"a": 1, "b": 1})", R"({"sparse": true})"},
    {R"({"a.0.a": 1})", "{}"},
    {R"({"x.0": -1})", "{}"},
    {R"({"a.1": 1, "b": 1})", "{}"},
    {R"({"x.1.b": 1})", "{}"},
    {R"({"a.a.a": 1})", "{}"},
    {R"({"x.0": 1})", R"({"sparse": true})"},
    {R"({"b": 1, "a.0": 1})", "{}"},
    {R"({"a.a": 1, "x": 1})", "{}"},
};

// A document's keys in one index, and whether they make it multikey; nullopt keys for a
// document the index cannot hold (parallel arrays), which a collection with it cannot hold.
struct KeysOfDocument {
  std::optional<std::vector<IndexKey>> keys;
  bool multikey = false;
};

inline KeysOfDocument KeysIn(const IndexDescriptor& index, bson::DocumentView doc) {
  StatusWith<DocumentKeys> keys = index.KeysAndMultikeyOf(doc);
  if (!keys.ok()) return {};
  return {std::move(keys).value().keys, keys.value().multikey};
}

// Whether `bounds` read a key of a document with `keys`.
inline bool BoundsRead(const IndexBounds& bounds, const std::vector<IndexKey>& keys) {
  for (const IndexKey& key : keys) {
    for (const KeyInterval& interval : bounds.intervals) {
      if (interval.Contains(key.encoded)) return true;
    }
  }
  return false;
}

// What breaks the property for `doc` under `bounds` (made for a multikey index or not): a
// description, or nullopt when the document does not match, is not in the index, or is read.
inline std::optional<std::string> LostMatch(const IndexDescriptor& index, bool index_multikey,
                                            const IndexBounds& bounds,
                                            const bson::Document& filter_doc,
                                            const query::Matcher& filter, const bson::Document& doc,
                                            const KeysOfDocument& keys) {
  if (!keys.keys.has_value() || (!index_multikey && keys.multikey) || !filter.Matches(doc) ||
      BoundsRead(bounds, *keys.keys)) {
    return std::nullopt;
  }
  return "bounds " + bounds.ToExplain().ToJson() + " of " +
         (index_multikey ? "multikey" : "non-multikey") + " index " + index.key_pattern().ToJson() +
         " for filter " + filter_doc.ToJson() + " lose " + doc.ToJson();
}

}  // namespace quarry::exec::testing
