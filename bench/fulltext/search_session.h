// One client connection to a store under test, with the full-text comparison's operations on
// its one collection or table of documents {id, title, body}: Quarry with an Atlas Search index,
// PostgreSQL with a tsvector column and a GIN index. Not thread-safe: one per client thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bench/fulltext/corpus.h"

namespace quarry::bench {

// The top ten of a query as a store returned them.
struct TopTen {
  std::size_t rows = 0;
  bool scores_descending = true;  // each score at most the one before it
};

class SearchSession {
 public:
  virtual ~SearchSession() = default;

  // Empties the store (dropping its collection or table) and makes the data Load() sends: every
  // document of `corpus`, in batches of `batch` where the store takes batches. Untimed.
  virtual Status PrepareLoad(const Corpus& corpus, std::size_t batch) = 0;
  // Sends what PrepareLoad made. REQUIRES: PrepareLoad succeeded.
  virtual Status Load() = 0;
  // Builds the full-text index over title and body and returns once queries can use it.
  virtual Status BuildIndex() = 0;
  // `words` as the store's query syntax ORs them.
  virtual std::string QueryText(const Corpus& corpus,
                                const std::vector<std::uint32_t>& words) const = 0;
  // The ten best matches of `query` (from QueryText) by the store's relevance score.
  virtual StatusWith<TopTen> SearchTopTen(const std::string& query) = 0;
  // How many documents match `query`.
  virtual StatusWith<std::int64_t> CountMatches(const std::string& query) = 0;
};

using SessionConnector = std::function<StatusWith<std::unique_ptr<SearchSession>>()>;

// The names the search index and the table use.
inline constexpr const char* kQuarryIndexName = "default";
inline constexpr const char* kPostgresIndexName = "docs_tsv_idx";

// Collection "docs" of database `db` through the C driver (w:1), with the search index
// "default": {mappings: {dynamic: false, fields: {title, body: {type: "string", analyzer:
// "lucene.whitespace"}}}}.
StatusWith<std::unique_ptr<SearchSession>> ConnectQuarrySearch(const std::string& uri,
                                                               const std::string& db);

// Table docs(id, title, body, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', title ||
// ' ' || body)) STORED) of PostgreSQL on 127.0.0.1:`port`, database postgres, as `user`, with
// a GIN index on tsv; each query a prepared statement.
StatusWith<std::unique_ptr<SearchSession>> ConnectPostgresSearch(int port, const std::string& user);

// What PostgreSQL stores for the search, in bytes: the GIN index (pg_relation_size) and the
// tsvector column (the sum of pg_column_size(tsv)).
struct PostgresSearchSizes {
  std::int64_t index_bytes = 0;
  std::int64_t tsvector_bytes = 0;
};
StatusWith<PostgresSearchSizes> PostgresSizes(int port, const std::string& user);

// Runs `sql` (no result rows) on a connection of its own: CHECKPOINT, ANALYZE.
Status PostgresExecute(int port, const std::string& user, const std::string& sql);

}  // namespace quarry::bench
