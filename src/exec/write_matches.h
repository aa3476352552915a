// How writes find and change the documents they target: every match of a filter, or the first
// (by _id or by a sort), with the retry that keeps a write from acting on a stale read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/planner.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"

namespace quarry::exec {

// {_id: <id>}: how a write names a document it may have to read again.
bson::Document IdDocument(bson::ValueView id);

// Calls `visit` with each document `matcher` matches (valid during the call) and its match
// details, in the order of the plan PlanFilter chooses with `hint`, until `visit` returns false.
Status ForEachMatch(
    const ExecContext& ctx, const Collection& collection, const query::Matcher& matcher,
    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit,
    const ResolvedHint& hint = {});

// The document with this _id as stored now; nullopt when there is none.
StatusWith<std::optional<bson::Document>> ReadById(const ExecContext& ctx,
                                                   const Collection& collection,
                                                   bson::ValueView id);

// What a write does to one matched document: adds at most one mutation for `doc` (its
// Update or Delete) to `*unit` and returns whether it did; false leaves the document as it is
// (an update that changes nothing). An error fails the statement.
using ChangeFunction = std::function<StatusWith<bool>(
    bson::DocumentView doc, const query::MatchDetails& details, storage::WriteUnit* unit)>;

struct MatchCounts {
  std::int64_t matched = 0;
  std::int64_t changed = 0;
};

// Changes every document `matcher` matches, committing every 1,000 changes as the scan goes on.
// A document is changed at most once, even when its change moves it ahead of an index scan. A
// document that changed between its read and its commit (WriteConflict) is read again and, if
// it still matches, changed again: never from a stale version. Gives up with WriteConflict
// after 100 rounds of conflicts.
StatusWith<MatchCounts> ChangeEveryMatch(const ExecContext& ctx, const Collection& collection,
                                         const query::Matcher& matcher, const Committer& commit,
                                         const ChangeFunction& change,
                                         const ResolvedHint& hint = {});

struct FirstMatch {
  bson::Document doc;                // as read, before the change
  bool changed = false;              // whether `change` added a mutation (which then committed)
  std::optional<double> text_score;  // the document's score, when the filter has a $text
};

// Changes the first document `matcher` matches: the first the plan PlanFilter chooses with
// `hint` returns, or the first in `sort` order when one is given. When its commit meets a
// WriteConflict, finds the target again from the start (it may no longer match, and another
// may), up to 100 times. nullopt when nothing matches.
StatusWith<std::optional<FirstMatch>> ChangeFirstMatch(
    const ExecContext& ctx, const Collection& collection, const query::Matcher& matcher,
    const query::SortSpec* sort, const Committer& commit, const ChangeFunction& change,
    const ResolvedHint& hint = {});

}  // namespace quarry::exec
