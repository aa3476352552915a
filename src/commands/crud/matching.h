// Walking the records a write statement targets: the planned record source (point lookup or
// scan) filtered by the statement's matcher.
#pragma once

#include <functional>
#include <vector>

#include "base/status.h"
#include "commands/collection_access.h"
#include "query/matcher.h"
#include "storage/write_unit.h"

namespace quarry::commands {

// Calls `visit` with each matching document (valid during the call) and its match details,
// in _id order, until `visit` returns false.
Status ForEachMatch(CommandContext& ctx, const CollectionHandle& collection,
                    const query::Matcher& matcher,
                    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit);

// {_id: <id>}: how a write remembers a document it may have to re-read.
bson::Document IdDocument(bson::ValueView id);

// Commits `unit` (unordered, with the request's durability); returns the entries of `ids`
// (one per mutation, as {_id}) whose mutation hit a write conflict: those documents changed
// after they were read and must be re-read and re-checked. Other failures are returned.
StatusWith<std::vector<bson::Document>> CommitNotingConflicts(CommandContext& ctx,
                                                              storage::WriteUnit unit,
                                                              std::vector<bson::Document> ids);

// Re-reads the document with this _id; nullopt when it is gone.
StatusWith<std::optional<bson::Document>> ReadById(CommandContext& ctx,
                                                   const CollectionHandle& collection,
                                                   bson::ValueView id);

}  // namespace quarry::commands
