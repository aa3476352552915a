// What a running pipeline reads and writes outside itself: collections ($lookup, $unionWith),
// and the targets of $out and $merge. A pipeline may run on after its aggregate command
// returned (getMore), so this object holds by value what it needs, not the command's context.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "catalog/catalog.h"
#include "commands/command_context.h"
#include "commands/search/search_indexes.h"
#include "commands/views/view_resolution.h"
#include "exec/exec_context.h"
#include "query/cursor_source.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {

class AggregateIo : public std::enable_shared_from_this<AggregateIo> {
 public:
  // Reads and writes as the request `ctx` would: its interrupt, write concern and DDL options.
  // `bypass_validation`: $out and $merge write without checking the target's validator
  // (aggregate's bypassDocumentValidation).
  explicit AggregateIo(CommandContext& ctx, bool bypass_validation = false);

  // The callbacks of a PipelineContext, bound to this object (kept alive by them), and the
  // server's memory limits, with its spill directory for allowDiskUse.
  query::PipelineContext MakePipelineContext(const std::string& db, bson::DocumentView let,
                                             bool allow_disk_use);

  // The collection's documents (none when it does not exist).
  StatusWith<std::unique_ptr<query::DocumentStream>> OpenCollection(const std::string& db,
                                                                    const std::string& coll);

  // The documents a read of `view` sees, with `stages` after the view's own (a count's or
  // distinct's $match), under the view's collation; `hint` applies to the source collection.
  // `view_depth`: views opened to reach this one, limited to kMaxViewDepth (a view's $lookup
  // may read a view that reads it).
  StatusWith<std::unique_ptr<query::DocumentStream>> OpenView(const ResolvedView& view,
                                                              bson::DocumentView stages,
                                                              bson::ValueView hint = {},
                                                              int view_depth = 0);

  // As mongod: into a temporary collection with the target's options and indexes (so its
  // validator and unique indexes hold), then renamed over the target.
  Status WriteOut(const query::OutTarget& target, query::DocumentStream* docs);
  Status WriteMerge(const query::MergeSpec& spec, query::DocumentStream* docs);

 private:
  Status CommitAll(storage::WriteUnit unit);
  StatusWith<std::unique_ptr<query::DocumentStream>> OpenCollectionAt(const std::string& db,
                                                                      const std::string& coll,
                                                                      int view_depth);

  exec::ExecContext exec_;
  SearchContext search_;  // a $unionWith's $search or $vectorSearch
  exec::Committer commit_;
  catalog::DdlOptions ddl_;
  // The server's blocking-stage limits and spill directory (ServerConfig).
  std::size_t max_sort_bytes_;
  std::size_t max_group_bytes_;
  std::string spill_dir_;
  bool bypass_validation_;
};

}  // namespace quarry::commands
