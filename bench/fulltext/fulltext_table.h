// The full-text comparison's one table: a row per part and store with Quarry's ratio to
// PostgreSQL, and notes that say what each part ran and whether the match counts agreed.
#pragma once

#include "bench/fulltext/fulltext_run.h"
#include "tools/client/result_table.h"

namespace quarry::bench {

// A row per result in order; Quarry's rows carry its ops/s over PostgreSQL's in the same part
// (none for the memory rows, which measure different things). The last note is the match-count
// verdict: "match counts: ... agree" or "match counts: MISMATCH (...)".
tools::client::ResultTable FullTextTable(const FullTextSettings& settings,
                                         const FullTextResults& results);

// Whether every query's match count agreed in both stores with the generator's.
bool MatchCountsAgree(const FullTextResults& results);

}  // namespace quarry::bench
