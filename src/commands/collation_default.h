// The collation a command works under: the one it names, else its collection's default (the
// `collation` option of create), as mongod resolves it.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "collation/collator.h"
#include "commands/command_context.h"

namespace quarry::commands {

// The default collation of collection `db`.`coll`; null (simple) when it has none or does not
// exist.
StatusWith<collation::CollatorPtr> CollectionDefaultCollator(CommandContext& ctx,
                                                             std::string_view db,
                                                             std::string_view coll);

// A command's or statement's `argument` (its `collation` field) when given, else
// `collection_default`. An explicit {locale: "simple"} is the simple collation even on a
// collection with a default. Fails as Collator::ParseArgument does, `where` prefixing the field.
StatusWith<collation::CollatorPtr> ResolveCollator(
    bson::ValueView argument, std::string_view where,
    const collation::CollatorPtr& collection_default);

// The fully specified form of `collator` as explain shows it; empty for the simple collation.
bson::DocumentView SpecOf(const collation::CollatorPtr& collator);

// Whether a command's `collation` argument names a collation (absent or null: it does not).
bool NamesCollation(bson::ValueView argument);

// ResolveCollator with the default of `db`.`coll`, looked up only when `argument` is absent.
StatusWith<collation::CollatorPtr> CommandCollator(CommandContext& ctx, std::string_view db,
                                                   std::string_view coll, bson::ValueView argument,
                                                   std::string_view where);

}  // namespace quarry::commands
