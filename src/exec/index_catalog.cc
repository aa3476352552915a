#include "exec/index_catalog.h"

#include <mutex>

#include "exec/operation_work.h"

namespace quarry::exec {
namespace {

struct Derived {
  Status status;
  std::shared_ptr<const ParsedIndex> parsed;
};

Derived Parse(const catalog::IndexInfo& index) {
  StatusWith<IndexDescriptor> descriptor = IndexDescriptor::Parse(index.spec, index.id);
  if (!descriptor.ok()) return {descriptor.status(), nullptr};
  std::shared_ptr<const storage::UniqueIndexInfo> unique;
  if (descriptor.value().unique()) {
    auto info = std::make_shared<storage::UniqueIndexInfo>();
    info->name = descriptor.value().name();
    info->key_pattern = bson::Document::Copy(descriptor.value().key_pattern());
    unique = std::move(info);
  }
  std::string scan_summary;
  AppendScanSummary("IXSCAN", descriptor.value().key_pattern(), &scan_summary);
  return {Status::OK(),
          std::make_shared<const ParsedIndex>(ParsedIndex{
              std::move(descriptor).value(), std::move(unique), std::move(scan_summary)})};
}

}  // namespace

StatusWith<std::shared_ptr<const ParsedIndex>> ParsedIndexOf(const catalog::IndexInfo& index) {
  catalog::IndexRuntime& runtime = *index.runtime;
  std::call_once(runtime.derive_once,
                 [&] { runtime.derived = std::make_shared<const Derived>(Parse(index)); });
  const auto& derived = *std::static_pointer_cast<const Derived>(runtime.derived);
  if (!derived.status.ok()) return derived.status;
  return derived.parsed;
}

}  // namespace quarry::exec
