// What a running pipeline reads and writes outside itself: collections ($lookup, the input),
// $out and $merge targets. A pipeline may run on after its aggregate command returned (getMore),
// so this object carries its own copy of what it needs rather than the command's context.
#pragma once

#include <memory>
#include <string>

#include "commands/command_context.h"
#include "query/cursor_source.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {

class AggregateIo : public std::enable_shared_from_this<AggregateIo> {
 public:
  AggregateIo(ServiceState& service, const WriteConcern& write_concern);

  // The callbacks of a PipelineContext, bound to this object (kept alive by them).
  query::PipelineContext MakePipelineContext(const std::string& db, bson::DocumentView let,
                                             bool allow_disk_use);

  // The collection's documents (none when it does not exist); a `filter` that pins _id makes
  // this a point lookup.
  std::unique_ptr<query::DocumentStream> OpenCollection(const std::string& db,
                                                        const std::string& coll,
                                                        bson::DocumentView filter = {});

  // $collStats' one document {ns, host, localTime, storageStats: {...}}.
  StatusWith<query::Batch> CollStatsBatch(const std::string& db, const std::string& coll);

  Status WriteOut(const query::OutTarget& target, query::DocumentStream* docs);
  Status WriteMerge(const query::MergeSpec& spec, query::DocumentStream* docs);

 private:
  ConnectionState connection_;
  CommandContext ctx_;
};

}  // namespace quarry::commands
