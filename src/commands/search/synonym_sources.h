// The synonym mappings a $search names, read from their source collections (or kept by the
// SynonymCache while those are unchanged), so that a write to a source collection counts from
// the next search on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "commands/search/search_indexes.h"
#include "text/full_text_mapping.h"
#include "text/search_operator.h"
#include "text/synonyms.h"

namespace quarry::commands {

// The mappings `op` names, as `mapping` (the index's definition) defines them, each read from
// its collection in `db` (a missing collection holds none). BadValue for a name the definition
// does not define, or when a source document is malformed (the mapping cannot serve queries).
StatusWith<text::SynonymMaps> ReadSynonyms(const SearchContext& ctx, const std::string& db,
                                           const text::FullTextMapping& mapping,
                                           const text::SearchOperator& op);

// Whether each synonym mapping `mapping` defines can serve queries, in name order: OK, or the
// error a search naming it would answer.
std::vector<std::pair<std::string, Status>> SynonymStatuses(const SearchContext& ctx,
                                                            const std::string& db,
                                                            const text::FullTextMapping& mapping);

}  // namespace quarry::commands
