// Updates: modifier documents ({$set: ..., $inc: ...}), replacement documents and pipeline-style
// updates ([{$set: ...}, ...]), parsed once and applied to each matched document, with
// mongod's semantics (field order, no-op detection, positional operators, arrayFilters, errors).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/document_diff.h"
#include "bson/value.h"
#include "query/expression/expression.h"
#include "query/match/matcher.h"

namespace quarry::query {

// Views here need only live through UpdateSpec::Parse, which copies what it keeps.
struct UpdateOptions {
  // The update command's `arrayFilters`, each {<identifier>[.path]: <condition>}.
  std::vector<bson::DocumentView> array_filters;
  // The statement's `upsert` flag, for the caller's bookkeeping: parsing does not depend on it,
  // and BuildUpsertDocument builds the inserted document.
  bool is_upsert = false;
  // The command's `let` document: constants pipeline-style updates see as $$name.
  bson::DocumentView let;
  // Fill UpdateResult::description (costs a comparison of the two documents).
  bool describe_changes = false;
  // The statement's collation (null: simple): $addToSet, $pull, $pullAll, $min, $max, $push's
  // $sort, arrayFilters and pipeline updates compare strings under it, as in mongod.
  std::shared_ptr<const bson::StringComparator> collator;
};

// What an update changed, as change streams report it.
using UpdateDescription = bson::DocumentDiff;

struct UpdateResult {
  bson::Document new_doc;
  // False when the update changed nothing (mongod's nModified does not count it).
  bool modified = false;
  UpdateDescription description;  // when UpdateOptions::describe_changes
};

class UpdateSpec {
 public:
  enum class Kind { kModifiers, kReplacement, kPipeline };

  // Parses the `u` of an update statement: a document (modifiers when its first key starts with
  // '$', else a replacement) or an array (a pipeline). Errors as mongod:
  //  - FailedToParse (9) "Unknown modifier: $foo. Expected a valid update modifier or
  //    pipeline-style update specified as an array";
  //  - ConflictingUpdateOperators (40) "Updating the path 'a.b' would create a conflict at 'a'";
  //  - TypeMismatch (14) for $inc/$mul with non-numeric arguments;
  //  - BadValue / FailedToParse for arrayFilters problems (unknown identifier, unused filter);
  //  - DollarPrefixedFieldName (52) for $-prefixed top-level fields of a replacement.
  static StatusWith<UpdateSpec> Parse(bson::ValueView update, const UpdateOptions& options);
  static StatusWith<UpdateSpec> Parse(bson::DocumentView update, const UpdateOptions& options);
  // A pipeline-style update: an array of $set/$addFields, $unset, $project, $replaceRoot,
  // $replaceWith stages (others fail with InvalidOptions "$group is not allowed to be used
  // within an update").
  static StatusWith<UpdateSpec> ParsePipeline(bson::DocumentView stages,
                                              const UpdateOptions& options);

  // Applies the update to `doc`. `details` gives the positional `$` its index (from the
  // Matcher that selected `doc`). `is_insert` is true when building an upserted document
  // ($setOnInsert applies then, and _id may be set). Fails as mongod: ImmutableField (66) when
  // _id would change, PathNotViable (28) when a field cannot be created inside a scalar or an
  // array, TypeMismatch (14) for $inc on a non-number, BSONObjectTooLarge (10334) past 16 MiB...
  StatusWith<UpdateResult> Apply(bson::DocumentView doc, const MatchDetails& details,
                                 bool is_insert) const;

  // The document an upsert inserts when `filter` matched nothing: the filter's equality
  // conditions (for modifier and pipeline updates), the update applied with is_insert, and _id
  // first (from the filter, the update, or a new ObjectId). For a replacement: the replacement
  // with the filter's _id equality, if any.
  StatusWith<bson::Document> BuildUpsertDocument(const Matcher& filter) const;

  Kind kind() const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

// The change from `before` to `after` as a change stream's updateDescription describes it.
inline UpdateDescription DescribeUpdate(bson::DocumentView before, bson::DocumentView after) {
  return bson::DiffDocuments(before, after);
}

}  // namespace quarry::query
