#include "commands/cursor_reply.h"

#include <string>

#include "bson/builder.h"

namespace quarry::commands {

bson::Document BuildCursorReply(std::string_view batch_field, const query::Batch& batch,
                                std::int64_t cursor_id, std::string_view ns) {
  bson::DocumentBuilder b;
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

}  // namespace quarry::commands
