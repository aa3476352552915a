// The plan of a $text search: the collection's one text index, read by TEXT_MATCH.
#include "exec/access_plan_internal.h"
#include "exec/index_catalog.h"
#include "exec/partial_filter.h"
#include "exec/stages/text_match.h"
#include "text/index_spec.h"
#include "text/search.h"

namespace quarry::exec {

StatusWith<Access> TextAccess(const ExecContext& ctx, const Collection& collection,
                              const query::Matcher& filter, const query::SortSpec& sort,
                              bool hinted) {
  if (sort.natural() != 0) {
    return Status(ErrorCode::kBadValue, "text expression not allowed with $natural sort order");
  }
  if (hinted) return Status(ErrorCode::kBadValue, "text and hint not allowed in same query");
  QUARRY_ASSIGN_OR_RETURN(query::Matcher rest, filter.RestWithoutText());
  std::shared_ptr<const ParsedIndex> text_index;
  const catalog::IndexInfo* index_info = nullptr;
  for (const catalog::IndexInfo& index : collection.info->indexes) {
    if (!index.ready || index.spec.Get("hidden").Truthy() || !index.key().Has(text::kTermField)) {
      continue;
    }
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
    if (parsed->descriptor.text() == nullptr) continue;
    // A partial text index holds only the documents its filter matches: it answers a search
    // whose other conditions imply that filter, as mongod's planner requires.
    const query::Matcher* partial = parsed->descriptor.partial_filter();
    if (partial != nullptr && !FilterImplies(rest, partial->filter())) continue;
    if (text_index != nullptr) {
      return Status(ErrorCode::kIndexNotFound, "more than one text index found for $text query");
    }
    text_index = std::move(parsed);
    index_info = &index;
  }
  if (text_index == nullptr) {
    return Status(ErrorCode::kIndexNotFound, "text index required for $text query");
  }
  TextMatch::Options options;
  options.collection = collection.id;
  options.index = index_info->id;
  QUARRY_ASSIGN_OR_RETURN(
      options.search,
      text::Analyze(*filter.text_search(), text_index->descriptor.text()->default_language()));
  options.parsed = std::move(text_index);
  if (!rest.MatchesEverything()) options.rest = std::move(rest);
  return Access{std::make_unique<TextMatch>(&ctx.indexes(), &ctx.records(), ctx.interrupt,
                                            std::move(options)),
                false};
}

}  // namespace quarry::exec
