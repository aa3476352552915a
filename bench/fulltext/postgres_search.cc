// The comparison's operations through libpq: one COPY of every row (sent a batch at a time),
// CREATE INDEX ... USING GIN, and the queries as prepared statements, parameters and results
// as text.
#include <libpq-fe.h>

#include <cstdlib>
#include <limits>
#include <set>

#include "bench/fulltext/search_session.h"

namespace quarry::bench {
namespace {

struct ConnectionDeleter {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
using ConnectionPtr = std::unique_ptr<PGconn, ConnectionDeleter>;

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

struct Statement {
  const char* name;
  const char* sql;
};

constexpr Statement kTopTen = {
    "fulltext_top_ten",
    "SELECT id, ts_rank(tsv, q) AS r FROM docs, to_tsquery('simple', $1) q WHERE tsv @@ q "
    "ORDER BY r DESC LIMIT 10"};
constexpr Statement kCount = {"fulltext_count",
                              "SELECT count(*) FROM docs WHERE tsv @@ to_tsquery('simple', $1)"};

constexpr const char* kCreateTable =
    "DROP TABLE IF EXISTS docs; "
    "CREATE TABLE docs (id integer PRIMARY KEY, title text NOT NULL, body text NOT NULL, "
    "tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || body)) STORED)";

Status PostgresError(PGconn* connection, const std::string& what) {
  return Status(ErrorCode::kOperationFailed,
                "PostgreSQL " + what + ": " + PQerrorMessage(connection));
}

StatusWith<ConnectionPtr> Connect(int port, const std::string& user) {
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port) +
                               " dbname=postgres connect_timeout=10 user=" + user;
  ConnectionPtr connection(PQconnectdb(conninfo.c_str()));
  if (connection == nullptr || PQstatus(connection.get()) != CONNECTION_OK) {
    return Status(ErrorCode::kHostUnreachable,
                  "cannot reach PostgreSQL on 127.0.0.1:" + std::to_string(port) + ": " +
                      (connection ? PQerrorMessage(connection.get()) : "out of memory"));
  }
  // Notices ("table docs does not exist, skipping") are not the benchmark's output.
  PQsetNoticeProcessor(
      connection.get(), [](void*, const char*) {}, nullptr);
  return connection;
}

// Runs `sql`, which may hold several statements; fails unless the last succeeded.
StatusWith<ResultPtr> Execute(PGconn* connection, const std::string& sql) {
  ResultPtr result(PQexec(connection, sql.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return PostgresError(connection, sql);
  }
  return result;
}

class PostgresSearch : public SearchSession {
 public:
  explicit PostgresSearch(ConnectionPtr connection) : connection_(std::move(connection)) {}

  Status PrepareLoad(const Corpus& corpus, std::size_t batch) override {
    QUARRY_RETURN_IF_ERROR(Execute(connection_.get(), kCreateTable));
    // COPY's text format: tab between columns; the words need no escaping.
    chunks_.clear();
    std::string chunk;
    for (std::size_t doc_idx = 0; doc_idx < corpus.documents().size(); ++doc_idx) {
      const Document& doc = corpus.documents()[doc_idx];
      chunk += std::to_string(doc_idx);
      chunk += '\t';
      chunk += corpus.Text(doc.title);
      chunk += '\t';
      chunk += corpus.Text(doc.body);
      chunk += '\n';
      if ((doc_idx + 1) % batch == 0) {
        chunks_.push_back(std::move(chunk));
        chunk.clear();
      }
    }
    if (!chunk.empty()) chunks_.push_back(std::move(chunk));
    return Status::OK();
  }

  Status Load() override {
    PGconn* connection = connection_.get();
    ResultPtr started(PQexec(connection, "COPY docs (id, title, body) FROM STDIN"));
    if (PQresultStatus(started.get()) != PGRES_COPY_IN) {
      return PostgresError(connection, "could not start COPY");
    }
    for (const std::string& chunk : chunks_) {
      if (PQputCopyData(connection, chunk.data(), static_cast<int>(chunk.size())) != 1) {
        return PostgresError(connection, "COPY data");
      }
    }
    if (PQputCopyEnd(connection, nullptr) != 1) return PostgresError(connection, "COPY end");
    Status status;
    while (ResultPtr result{PQgetResult(connection)}) {
      if (PQresultStatus(result.get()) != PGRES_COMMAND_OK && status.ok()) {
        status = PostgresError(connection, "COPY");
      }
    }
    return status;
  }

  Status BuildIndex() override {
    return Execute(connection_.get(),
                   std::string("CREATE INDEX ") + kPostgresIndexName + " ON docs USING GIN (tsv)")
        .status();
  }

  std::string QueryText(const Corpus& corpus,
                        const std::vector<std::uint32_t>& words) const override {
    return JoinWords(corpus, words, " | ");
  }

  StatusWith<TopTen> SearchTopTen(const std::string& query) override {
    QUARRY_ASSIGN_OR_RETURN(ResultPtr result, ExecutePrepared(kTopTen, query));
    TopTen top;
    top.rows = static_cast<std::size_t>(PQntuples(result.get()));
    double previous = std::numeric_limits<double>::infinity();
    for (int row = 0; row < static_cast<int>(top.rows); ++row) {
      const double value = std::strtod(PQgetvalue(result.get(), row, 1), nullptr);
      if (!(value <= previous)) top.scores_descending = false;
      previous = value;
    }
    return top;
  }

  StatusWith<std::int64_t> CountMatches(const std::string& query) override {
    QUARRY_ASSIGN_OR_RETURN(ResultPtr result, ExecutePrepared(kCount, query));
    if (PQntuples(result.get()) != 1) {
      return Status(ErrorCode::kOperationFailed, "PostgreSQL count(*) returned no row");
    }
    return static_cast<std::int64_t>(std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10));
  }

 private:
  // Prepares `statement` on its first use: the table must exist by then.
  StatusWith<ResultPtr> ExecutePrepared(const Statement& statement, const std::string& query) {
    if (!prepared_.contains(statement.name)) {
      ResultPtr prepared(PQprepare(connection_.get(), statement.name, statement.sql, 0, nullptr));
      if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        return PostgresError(connection_.get(), std::string("could not prepare ") + statement.sql);
      }
      prepared_.insert(statement.name);
    }
    const char* values[] = {query.c_str()};
    ResultPtr result(
        PQexecPrepared(connection_.get(), statement.name, 1, values, nullptr, nullptr, 0));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
      return PostgresError(connection_.get(), statement.name);
    }
    return result;
  }

  ConnectionPtr connection_;
  std::set<std::string, std::less<>> prepared_;  // statement names
  std::vector<std::string> chunks_;              // PrepareLoad's COPY data, a batch each
};

}  // namespace

StatusWith<std::unique_ptr<SearchSession>> ConnectPostgresSearch(int port,
                                                                 const std::string& user) {
  QUARRY_ASSIGN_OR_RETURN(ConnectionPtr connection, Connect(port, user));
  return std::unique_ptr<SearchSession>(std::make_unique<PostgresSearch>(std::move(connection)));
}

StatusWith<PostgresSearchSizes> PostgresSizes(int port, const std::string& user) {
  QUARRY_ASSIGN_OR_RETURN(ConnectionPtr connection, Connect(port, user));
  QUARRY_ASSIGN_OR_RETURN(
      ResultPtr result,
      Execute(connection.get(),
              std::string("SELECT pg_relation_size('") + kPostgresIndexName +
                  "'), (SELECT coalesce(sum(pg_column_size(tsv)), 0) FROM docs)"));
  if (PQntuples(result.get()) != 1) {
    return Status(ErrorCode::kOperationFailed, "PostgreSQL sizes returned no row");
  }
  return PostgresSearchSizes{
      .index_bytes = std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10),
      .tsvector_bytes = std::strtoll(PQgetvalue(result.get(), 0, 1), nullptr, 10)};
}

Status PostgresExecute(int port, const std::string& user, const std::string& sql) {
  QUARRY_ASSIGN_OR_RETURN(ConnectionPtr connection, Connect(port, user));
  return Execute(connection.get(), sql).status();
}

}  // namespace quarry::bench
