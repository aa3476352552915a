// The comparison's operations through the MongoDB C driver: insert_many in batches, a `search`
// index built to READY, $search for the top ten with their scores and $searchMeta's total count.
#include <limits>

#include "bench/clients/search_index.h"
#include "bench/fulltext/search_session.h"
#include "tools/bench/bulk_insert.h"
#include "tools/bench/document_set.h"
#include "tools/client/mongo_client.h"
#include "tools/client/progress.h"

namespace quarry::bench {
namespace {

namespace tb = tools::bench;
namespace tc = tools::client;

constexpr const char* kCollection = "docs";
// Long enough for any corpus a run sizes: the build of 100,000 documents takes seconds.
constexpr double kReadyTimeoutSeconds = 3600;

void AppendText(bson_t* doc, const char* key, const std::string& text) {
  bson_append_utf8(doc, key, -1, text.data(), static_cast<int>(text.size()));
}

// {index: "default", text: {query, path: ["title", "body"]}} into `stage`.
void AppendTextOperator(bson_t* stage, const std::string& query) {
  bson_t text, path;
  BSON_APPEND_UTF8(stage, "index", kQuarryIndexName);
  BSON_APPEND_DOCUMENT_BEGIN(stage, "text", &text);
  AppendText(&text, "query", query);
  BSON_APPEND_ARRAY_BEGIN(&text, "path", &path);
  BSON_APPEND_UTF8(&path, "0", "title");
  BSON_APPEND_UTF8(&path, "1", "body");
  bson_append_array_end(&text, &path);
  bson_append_document_end(stage, &text);
}

class QuarrySearch : public SearchSession {
 public:
  QuarrySearch(std::unique_ptr<tc::MongoClient> client, std::string db)
      : client_(std::move(client)),
        db_(std::move(db)),
        collection_(client_->Collection(db_, kCollection)) {}

  Status PrepareLoad(const Corpus& corpus, std::size_t batch) override {
    QUARRY_RETURN_IF_ERROR(tb::DropCollection(collection_.get()));
    batch_ = batch;
    documents_ = tb::DocumentSet();
    bson_t doc = BSON_INITIALIZER;
    for (std::size_t doc_idx = 0; doc_idx < corpus.documents().size(); ++doc_idx) {
      bson_reinit(&doc);
      BSON_APPEND_INT32(&doc, "_id", static_cast<std::int32_t>(doc_idx));
      AppendText(&doc, "title", corpus.Text(corpus.documents()[doc_idx].title));
      AppendText(&doc, "body", corpus.Text(corpus.documents()[doc_idx].body));
      documents_.Append(&doc);
    }
    bson_destroy(&doc);
    return Status::OK();
  }

  Status Load() override {
    tc::NoProgress progress;
    return tb::InsertInBatches(collection_.get(), documents_, batch_, {}, progress);
  }

  Status BuildIndex() override {
    bson_t command = BSON_INITIALIZER;
    bson_t indexes, index, definition, mappings, fields;
    BSON_APPEND_UTF8(&command, "createSearchIndexes", kCollection);
    BSON_APPEND_ARRAY_BEGIN(&command, "indexes", &indexes);
    BSON_APPEND_DOCUMENT_BEGIN(&indexes, "0", &index);
    BSON_APPEND_UTF8(&index, "name", kQuarryIndexName);
    BSON_APPEND_DOCUMENT_BEGIN(&index, "definition", &definition);
    BSON_APPEND_DOCUMENT_BEGIN(&definition, "mappings", &mappings);
    BSON_APPEND_BOOL(&mappings, "dynamic", false);
    BSON_APPEND_DOCUMENT_BEGIN(&mappings, "fields", &fields);
    for (const char* field : {"title", "body"}) {
      bson_t mapping;
      BSON_APPEND_DOCUMENT_BEGIN(&fields, field, &mapping);
      BSON_APPEND_UTF8(&mapping, "type", "string");
      BSON_APPEND_UTF8(&mapping, "analyzer", "lucene.whitespace");
      bson_append_document_end(&fields, &mapping);
    }
    bson_append_document_end(&mappings, &fields);
    bson_append_document_end(&definition, &mappings);
    bson_append_document_end(&index, &definition);
    bson_append_document_end(&indexes, &index);
    bson_append_array_end(&command, &indexes);
    StatusWith<tc::BsonPtr> reply = client_->RunCommand(db_, command);
    bson_destroy(&command);
    QUARRY_RETURN_IF_ERROR(reply.status());
    return WaitUntilReady(*client_, db_, kCollection, kQuarryIndexName, kReadyTimeoutSeconds);
  }

  std::string QueryText(const Corpus& corpus,
                        const std::vector<std::uint32_t>& words) const override {
    // lucene.whitespace splits the query as it split the fields; the text operator ORs the terms.
    return JoinWords(corpus, words, " ");
  }

  StatusWith<TopTen> SearchTopTen(const std::string& query) override {
    bson_t pipeline = BSON_INITIALIZER;
    bson_t stage, search, project, meta;
    BSON_APPEND_DOCUMENT_BEGIN(&pipeline, "0", &stage);
    BSON_APPEND_DOCUMENT_BEGIN(&stage, "$search", &search);
    AppendTextOperator(&search, query);
    bson_append_document_end(&stage, &search);
    bson_append_document_end(&pipeline, &stage);
    BSON_APPEND_DOCUMENT_BEGIN(&pipeline, "1", &stage);
    BSON_APPEND_INT32(&stage, "$limit", 10);
    bson_append_document_end(&pipeline, &stage);
    BSON_APPEND_DOCUMENT_BEGIN(&pipeline, "2", &stage);
    BSON_APPEND_DOCUMENT_BEGIN(&stage, "$project", &project);
    BSON_APPEND_INT32(&project, "_id", 1);
    BSON_APPEND_DOCUMENT_BEGIN(&project, "score", &meta);
    BSON_APPEND_UTF8(&meta, "$meta", "searchScore");
    bson_append_document_end(&project, &meta);
    bson_append_document_end(&stage, &project);
    bson_append_document_end(&pipeline, &stage);
    TopTen top;
    double previous = std::numeric_limits<double>::infinity();
    QUARRY_RETURN_IF_ERROR(Aggregate(pipeline, [&](const bson_t& doc) {
      ++top.rows;
      bson_iter_t score;
      const double value =
          bson_iter_init_find(&score, &doc, "score") && BSON_ITER_HOLDS_NUMBER(&score)
              ? bson_iter_as_double(&score)
              : std::numeric_limits<double>::quiet_NaN();
      if (!(value <= previous)) top.scores_descending = false;
      previous = value;
    }));
    return top;
  }

  StatusWith<std::int64_t> CountMatches(const std::string& query) override {
    bson_t pipeline = BSON_INITIALIZER;
    bson_t stage, search_meta, count;
    BSON_APPEND_DOCUMENT_BEGIN(&pipeline, "0", &stage);
    BSON_APPEND_DOCUMENT_BEGIN(&stage, "$searchMeta", &search_meta);
    AppendTextOperator(&search_meta, query);
    BSON_APPEND_DOCUMENT_BEGIN(&search_meta, "count", &count);
    BSON_APPEND_UTF8(&count, "type", "total");
    bson_append_document_end(&search_meta, &count);
    bson_append_document_end(&stage, &search_meta);
    bson_append_document_end(&pipeline, &stage);
    std::int64_t total = -1;
    QUARRY_RETURN_IF_ERROR(Aggregate(pipeline, [&](const bson_t& doc) {
      bson_iter_t iter, found;
      if (bson_iter_init(&iter, &doc) && bson_iter_find_descendant(&iter, "count.total", &found) &&
          BSON_ITER_HOLDS_NUMBER(&found)) {
        total = bson_iter_as_int64(&found);
      }
    }));
    if (total < 0) {
      return Status(ErrorCode::kOperationFailed, "$searchMeta returned no count.total");
    }
    return total;
  }

 private:
  // Runs `pipeline` (freed here) on the collection and calls `each` with every document.
  template <typename Each>
  Status Aggregate(bson_t& pipeline, Each each) {
    mongoc_cursor_t* cursor = mongoc_collection_aggregate(collection_.get(), MONGOC_QUERY_NONE,
                                                          &pipeline, nullptr, nullptr);
    const bson_t* doc;
    while (mongoc_cursor_next(cursor, &doc)) each(*doc);
    bson_error_t error;
    Status status;
    if (mongoc_cursor_error(cursor, &error)) status = tc::DriverError(error, "aggregate failed");
    mongoc_cursor_destroy(cursor);
    bson_destroy(&pipeline);
    return status;
  }

  std::unique_ptr<tc::MongoClient> client_;
  std::string db_;
  tc::CollectionPtr collection_;
  tb::DocumentSet documents_;  // PrepareLoad's
  std::size_t batch_ = 1000;
};

}  // namespace

StatusWith<std::unique_ptr<SearchSession>> ConnectQuarrySearch(const std::string& uri,
                                                               const std::string& db) {
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<tc::MongoClient> client,
                          tc::MongoClient::Connect({.uri = uri, .app_name = "fulltext_bench"}));
  return std::unique_ptr<SearchSession>(std::make_unique<QuarrySearch>(std::move(client), db));
}

}  // namespace quarry::bench
