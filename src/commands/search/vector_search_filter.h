// $vectorSearch's pre-filter: the operators Atlas allows, on the fields the index declares as
// filters. Anything else is refused before the query runs.
#pragma once

#include "base/status.h"
#include "bson/value.h"
#include "vector/search_index_definition.h"

namespace quarry::commands {

// Which of the index's filter fields a filter may name: all of them (an index without a
// nested root), those under the nested root (`filter` of a nested index), or those outside it
// (`parentFilter`).
enum class FilterScope { kAll, kElements, kParent };

Status CheckVectorSearchFilter(bson::DocumentView filter,
                               const vector::SearchIndexDefinition& definition, FilterScope scope);

}  // namespace quarry::commands
