// Walking the records a write statement targets: the planned record source (point lookup or
// scan) filtered by the statement's matcher.
#pragma once

#include <functional>
#include <vector>

#include "base/status.h"
#include "commands/collection_access.h"
#include "query/match/matcher.h"
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

// The oplog entry of a delete: {op: "d", ns, ui, o: {_id}, images, pre?}. The deleted document
// is logged only when the collection has changeStreamPreAndPostImages enabled.
bson::Document DeleteOplogEntry(const CollectionHandle& collection, bson::DocumentView deleted);

// The oplog entry of an update: {op: "u", ns, ui, o2: {_id}, o: <post-image>, pre: <pre-image>,
// r: <replacement?>, images}. Change streams diff the two images for updateDescription and
// report a replacement as a "replace" event; `images` says whether the collection had
// changeStreamPreAndPostImages enabled when the change was made.
bson::Document UpdateOplogEntry(const CollectionHandle& collection, bson::DocumentView pre_image,
                                bson::DocumentView post_image, bool replacement);

// Whether the collection has changeStreamPreAndPostImages: {enabled: true}.
bool PreAndPostImagesEnabled(const CollectionHandle& collection);

// The oplog entry of an insert: {op: "i", ns, ui, o: <document>}.
bson::Document InsertOplogEntry(const CollectionHandle& collection, bson::DocumentView document);

}  // namespace quarry::commands
