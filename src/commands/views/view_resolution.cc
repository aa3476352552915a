#include "commands/views/view_resolution.h"

#include <memory>
#include <vector>

#include "bson/builder.h"
#include "catalog/collection_info.h"

namespace quarry::commands {

StatusWith<std::optional<ResolvedView>> ResolveView(const catalog::Catalog& catalog,
                                                    std::string_view db, std::string_view name) {
  std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, name);
  if (info == nullptr || !info->is_view()) return std::optional<ResolvedView>();
  ResolvedView view;
  view.db = std::string(db);
  view.name = std::string(name);
  if (info->options.view().Get("collation").type() == bson::Type::kDocument) {
    view.collation = bson::Document::Copy(info->options.view().Get("collation").Document());
  }
  // Outermost first as the chain is walked; each view's stages run before those of the views
  // defined on it.
  std::vector<std::shared_ptr<const catalog::CollectionInfo>> chain;
  while (info != nullptr && info->is_view()) {
    if (static_cast<int>(chain.size()) >= kMaxViewDepth) {
      return Status(ErrorCode::kViewDepthLimitExceeded,
                    "View depth too deep or view cycle detected; maximum depth is " +
                        std::to_string(kMaxViewDepth));
    }
    view.source = std::string(info->options.view().Get("viewOn").String());
    chain.push_back(std::move(info));
    info = catalog.Find(db, view.source);
  }
  bson::ArrayBuilder stages;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    bson::ValueView pipeline = (*it)->options.view().Get("pipeline");
    if (pipeline.type() != bson::Type::kArray) continue;
    for (const bson::Element& stage : pipeline.Document()) stages.Append(stage.value);
  }
  view.pipeline = std::move(stages).Finish();
  return std::optional<ResolvedView>(std::move(view));
}

Status NotSupportedOnView(std::string_view db, std::string_view name) {
  return Status(
      ErrorCode::kCommandNotSupportedOnView,
      "Namespace " + std::string(db) + "." + std::string(name) + " is a view, not a collection");
}

StatusWith<bson::Document> CollationForView(const ResolvedView& view, bson::ValueView argument) {
  bson::DocumentBuilder simple_builder;
  simple_builder.AppendString("locale", "simple");
  const bson::Document simple = std::move(simple_builder).Finish();
  const bson::Document own = view.collation.view().empty() ? simple : view.collation;
  if (!argument.exists() || argument.type() == bson::Type::kNull) return own;
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr asked,
                          collation::Collator::ParseArgument(argument, ""));
  const bool same = asked == nullptr ? view.collation.view().empty()
                                     : asked->spec().bytes() == view.collation.view().bytes();
  if (!same) {
    return Status(ErrorCode::kOptionNotSupportedOnView,
                  "Cannot override a view's default collation");
  }
  return own;
}

}  // namespace quarry::commands
