#include "changestream/transaction_span.h"

#include <cstdint>
#include <memory>
#include <string_view>

#include "bson/value.h"

namespace quarry::changestream {
namespace {

// What names an entry's transaction: its lsid's bytes and its txnNumber; empty when it has none.
struct TransactionName {
  std::string_view lsid;
  std::int64_t txn_number = 0;

  static TransactionName Of(bson::DocumentView entry) {
    const bson::ValueView lsid = entry.Get("lsid");
    const bson::ValueView txn_number = entry.Get("txnNumber");
    if (lsid.type() != bson::Type::kDocument || !txn_number.IsIntegral()) return {};
    return {.lsid = std::string_view(lsid.data(), lsid.size()), .txn_number = txn_number.AsInt64()};
  }
  bool empty() const { return lsid.empty(); }
  bool operator==(const TransactionName&) const = default;
};

// The timestamp of the farthest entry from `cursor`'s first on that is `name`'s, or `from` when
// that first one is not.
StatusWith<storage::Timestamp> Extent(storage::OplogCursor& cursor, const TransactionName& name,
                                      storage::Timestamp from) {
  storage::Timestamp farthest = from;
  for (; cursor.Valid() && TransactionName::Of(cursor.entry()) == name; cursor.Next()) {
    farthest = cursor.ts();
  }
  QUARRY_RETURN_IF_ERROR(cursor.status());
  return farthest;
}

}  // namespace

StatusWith<std::optional<TransactionSpan>> TransactionSpanAt(const storage::Oplog& oplog,
                                                             storage::Timestamp ts) {
  std::unique_ptr<storage::OplogCursor> at = oplog.Scan(ts);
  if (!at->Valid() || at->ts() != ts) {
    QUARRY_RETURN_IF_ERROR(at->status());
    return std::optional<TransactionSpan>();
  }
  // The name's bytes live in `at`'s entry, which stays valid while `at` does.
  const TransactionName name = TransactionName::Of(at->entry());
  if (name.empty()) return std::optional<TransactionSpan>();
  TransactionSpan span;
  std::unique_ptr<storage::OplogCursor> before = oplog.ScanBackward(ts - 1);
  QUARRY_ASSIGN_OR_RETURN(span.first, Extent(*before, name, ts));
  std::unique_ptr<storage::OplogCursor> after = oplog.Scan(ts + 1);
  QUARRY_ASSIGN_OR_RETURN(span.last, Extent(*after, name, ts));
  return std::optional<TransactionSpan>(span);
}

}  // namespace quarry::changestream
