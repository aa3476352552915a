#include "server/reply_builder.h"

#include <array>
#include <cstring>

#include "base/check.h"
#include "bson/builder.h"

namespace quarry::server {
namespace {

// Quarry signs no cluster time: the hash is all zeros, as mongod's is without keys.
constexpr char kNoSignature[20] = {};

// What every success reply ends with: `ok`, `$clusterTime`, `operationTime` and the closing
// NUL (138 bytes).
constexpr std::size_t kReplyTailBytes = 138;

// $clusterTime and operationTime, built once around a zero timestamp: each reply copies the
// bytes and writes its timestamp where the two go, which costs a tenth of appending the
// elements one by one (a ping's reply is mostly these).
class ClusterTimeElements {
 public:
  ClusterTimeElements() {
    bson::DocumentBuilder b;
    b.OpenDocument("$clusterTime");
    b.AppendTimestamp("clusterTime", 0);
    b.OpenDocument("signature")
        .AppendBinary("hash", 0, std::string_view(kNoSignature, sizeof kNoSignature))
        .AppendInt64("keyId", 0)
        .Close();
    b.Close();
    b.AppendTimestamp("operationTime", 0);
    const bson::Document doc = std::move(b).Finish();
    QUARRY_CHECK(doc.size() <= kMaxBytes);  // a fixed layout
    std::memcpy(bytes_.data(), doc.bytes().data(), doc.size());
    const bson::DocumentView view(bytes_.data());
    cluster_time_at_ =
        view.Get("$clusterTime").Document().Get("clusterTime").data() - bytes_.data();
    operation_time_at_ = view.Get("operationTime").data() - bytes_.data();
  }

  void AppendTo(std::uint64_t ts, bson::DocumentBuilder* b) const {
    std::array<char, kMaxBytes> bytes = bytes_;
    std::memcpy(bytes.data() + cluster_time_at_, &ts, sizeof ts);
    std::memcpy(bytes.data() + operation_time_at_, &ts, sizeof ts);
    b->AppendElements(bson::DocumentView(bytes.data()));
  }

 private:
  static constexpr std::size_t kMaxBytes = 192;
  std::array<char, kMaxBytes> bytes_{};
  std::ptrdiff_t cluster_time_at_ = 0;
  std::ptrdiff_t operation_time_at_ = 0;
};

// Drivers start gossiping $clusterTime once they receive it, and causal reads send
// afterClusterTime. With one member every read already sees every write, so the value only
// has to be a Timestamp that never goes backwards.
void AppendClusterTime(const commands::ServiceState& state, bson::DocumentBuilder* b) {
  if (state.config.repl_set.empty() || !state.cluster_time) return;
  static const ClusterTimeElements elements;
  elements.AppendTo(state.cluster_time(), b);
}

// A command's own `ok` gives way to the one the reply ends with.
bson::DocumentBuilder WithoutOk(bson::Document body) {
  if (!body.view().Has("ok")) return bson::DocumentBuilder(std::move(body));
  bson::DocumentBuilder b(body.size());
  for (const bson::Element& e : body.view()) {
    if (e.key != "ok") b.Append(e.key, e.value);
  }
  return b;
}

}  // namespace

bson::Document FinishSuccessReply(const commands::ServiceState& state, bson::Document body,
                                  const std::optional<Status>& write_concern_error,
                                  const std::optional<bson::Document>& write_concern_error_doc,
                                  const std::optional<bson::Document>& labels) {
  bson::DocumentBuilder b = WithoutOk(std::move(body));
  b.Reserve(kReplyTailBytes);
  if (write_concern_error.has_value() && !write_concern_error->ok()) {
    b.OpenDocument("writeConcernError")
        .AppendInt32("code", static_cast<std::int32_t>(write_concern_error->code()))
        .AppendString("codeName", write_concern_error->code_name())
        .AppendString("errmsg", write_concern_error->reason())
        .OpenDocument("errInfo")
        .Close()
        .Close();
  } else if (write_concern_error_doc.has_value()) {
    b.AppendDocument("writeConcernError", *write_concern_error_doc);
  }
  if (labels.has_value() && !labels->view().empty()) b.AppendArray("errorLabels", *labels);
  b.AppendDouble("ok", 1.0);
  AppendClusterTime(state, &b);
  return std::move(b).Finish();
}

bson::Document BuildErrorReply(const commands::ServiceState& state, const Status& status,
                               const std::optional<bson::Document>& labels) {
  bson::DocumentBuilder b;
  b.AppendDouble("ok", 0.0);
  b.AppendString("errmsg", status.reason());
  b.AppendInt32("code", static_cast<std::int32_t>(status.code()));
  b.AppendString("codeName", status.code_name());
  if (!status.extra_info().empty()) {
    bson::DocumentView extra(status.extra_info().data());
    for (const bson::Element& e : extra) {
      if (e.key != "ok" && e.key != "errmsg" && e.key != "code" && e.key != "codeName") {
        b.Append(e.key, e.value);
      }
    }
  }
  if (labels.has_value() && !labels->view().empty()) b.AppendArray("errorLabels", *labels);
  AppendClusterTime(state, &b);
  return std::move(b).Finish();
}

}  // namespace quarry::server
