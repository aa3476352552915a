// Resolving a command's collation against its collection's default, with the default's ICU
// collator cached per thread.
#include "commands/collation_default.h"

#include <string>
#include <unordered_map>

#include "catalog/catalog.h"

namespace quarry::commands {
namespace {

// Making an ICU collator costs far more than a command's lookup, and a collection's default is
// asked for by every command on it: each thread keeps the collators of the specs it has met.
StatusWith<collation::CollatorPtr> CachedCollator(bson::DocumentView spec) {
  constexpr std::size_t kMaxCached = 64;
  thread_local std::unordered_map<std::string, collation::CollatorPtr> cache;
  std::string key(spec.bytes());
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator, collation::Collator::Parse(spec));
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(std::move(key), collator);
  return collator;
}

}  // namespace

bson::DocumentView SpecOf(const collation::CollatorPtr& collator) {
  return collator != nullptr ? collator->spec() : bson::DocumentView();
}

bool NamesCollation(bson::ValueView argument) {
  return argument.exists() && argument.type() != bson::Type::kNull;
}

StatusWith<collation::CollatorPtr> CollectionDefaultCollator(CommandContext& ctx,
                                                             std::string_view db,
                                                             std::string_view coll) {
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(db, coll);
  if (info == nullptr) return collation::CollatorPtr();
  bson::ValueView spec = info->options.Get("collation");
  if (spec.type() != bson::Type::kDocument) return collation::CollatorPtr();
  return CachedCollator(spec.Document());
}

StatusWith<collation::CollatorPtr> ResolveCollator(
    bson::ValueView argument, std::string_view where,
    const collation::CollatorPtr& collection_default) {
  if (!NamesCollation(argument)) return collection_default;
  return collation::Collator::ParseArgument(argument, where);
}

StatusWith<collation::CollatorPtr> CommandCollator(CommandContext& ctx, std::string_view db,
                                                   std::string_view coll, bson::ValueView argument,
                                                   std::string_view where) {
  if (NamesCollation(argument)) return collation::Collator::ParseArgument(argument, where);
  return CollectionDefaultCollator(ctx, db, coll);
}

}  // namespace quarry::commands
