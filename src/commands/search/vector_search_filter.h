// $vectorSearch's pre-filter: the operators Atlas allows, on the fields the index declares as
// filters. Anything else is refused before the query runs.
#pragma once

#include "base/status.h"
#include "bson/value.h"
#include "vector/search_index_definition.h"

namespace quarry::commands {

Status CheckVectorSearchFilter(bson::DocumentView filter,
                               const vector::SearchIndexDefinition& definition);

}  // namespace quarry::commands
