#include "exec/index_catalog.h"

#include <algorithm>
#include <mutex>

#include "exec/operation_work.h"

namespace quarry::exec {
namespace {

struct Derived {
  Status status;
  std::shared_ptr<const ParsedIndex> parsed;
};

std::optional<std::vector<std::string>> KeySourcesOf(const IndexDescriptor& descriptor) {
  // A text index's strings may be anywhere below its weighted paths, and its languages in any
  // subdocument: its keys are made again whenever a document changes.
  if (descriptor.wildcard() != nullptr || descriptor.text() != nullptr ||
      descriptor.partial_filter() != nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> sources;
  for (const IndexField& field : descriptor.fields()) {
    std::string top(field.path.substr(0, field.path.find('.')));
    if (std::ranges::find(sources, top) == sources.end()) sources.push_back(std::move(top));
  }
  return sources;
}

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
  std::optional<std::vector<std::string>> key_sources = KeySourcesOf(descriptor.value());
  return {Status::OK(), std::make_shared<const ParsedIndex>(
                            ParsedIndex{std::move(descriptor).value(), std::move(unique),
                                        std::move(scan_summary), std::move(key_sources)})};
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
