// Views (create with `viewOn` and `pipeline`): what a read of one runs, and the refusal every
// other command gives one. A read of a view is an aggregate over the collection its chain of
// views ends at, with every view's stages in front of the reader's own, as mongod runs it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/catalog.h"
#include "collation/collator.h"

namespace quarry::commands {

// mongod's limit on views defined on views.
inline constexpr int kMaxViewDepth = 20;

struct ResolvedView {
  std::string db;
  std::string name;    // the view's, which the cursors of its reads carry
  std::string source;  // the collection at the end of the chain (it may not exist)
  // An array: the chain's stages, those of the view nearest the source first.
  bson::Document pipeline;
  // The view's default collation (create's `collation`, fully specified); empty for simple.
  bson::Document collation;

  std::string ns() const { return db + "." + name; }
};

// The view `db`.`name` resolved to its source; nullopt when that names no view. Fails with 149
// ViewDepthLimitExceeded past kMaxViewDepth views (or a cycle).
StatusWith<std::optional<ResolvedView>> ResolveView(const catalog::Catalog& catalog,
                                                    std::string_view db, std::string_view name);

// 166 CommandNotSupportedOnView, as mongod answers a command that needs a collection.
Status NotSupportedOnView(std::string_view db, std::string_view name);

// A read's `collation` argument against the view's: absent (or null) takes the view's, and one
// that differs fails with 167 OptionNotSupportedOnView. Returns the collation to read with,
// {locale: "simple"} when the view has none, so the source's own default never applies.
StatusWith<bson::Document> CollationForView(const ResolvedView& view, bson::ValueView argument);

}  // namespace quarry::commands
