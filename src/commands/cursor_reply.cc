#include "commands/cursor_reply.h"

#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"

namespace quarry::commands {

bson::Document BuildCursorReply(std::string_view batch_field, const query::Batch& batch,
                                std::int64_t cursor_id, std::string_view ns) {
  // Sized up front: a batch is up to 16 MiB, and growing the buffer would copy it again and
  // again. The slack leaves room for the envelope (ok, $clusterTime) that the server appends in
  // place.
  constexpr std::size_t kEnvelopeSlack = 512;
  bson::DocumentBuilder b(
      batch.bytes + batch.documents.size() * query::BatchElementOverhead(batch.documents.size()) +
      ns.size() + kEnvelopeSlack);
  b.OpenDocument("cursor");
  b.OpenArray(batch_field);
  for (std::size_t i = 0; i < batch.documents.size(); ++i) {
    b.AppendDocument(std::to_string(i), batch.documents[i]);
  }
  b.Close();
  b.AppendInt64("id", cursor_id);
  b.AppendString("ns", ns);
  b.Close();
  return std::move(b).Finish();
}

bson::Document BuildResultsReply(CommandContext& ctx, std::string_view batch_field,
                                 const query::Batch& batch, std::int64_t cursor_id,
                                 std::string_view ns) {
  ctx.stats().nreturned =
      ctx.stats().nreturned.value_or(0) + static_cast<std::int64_t>(batch.documents.size());
  return BuildCursorReply(batch_field, batch, cursor_id, ns);
}

}  // namespace quarry::commands
