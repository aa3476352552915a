// YCSB's operations through libpq on one table of JSONB documents keyed by id, the layout
// FerretDB stores documents in. Each statement is prepared once per connection, and parameters
// and results travel as text.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

#include "bench/ycsb/store_session.h"

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

constexpr Statement kRead = {"ycsb_read", "SELECT doc FROM usertable WHERE id = $1"};
constexpr Statement kUpdate = {
    "ycsb_update",
    "UPDATE usertable SET doc = jsonb_set(doc, ARRAY[$2::text], to_jsonb($3::text)) "
    "WHERE id = $1"};
constexpr Statement kInsert = {"ycsb_insert",
                               "INSERT INTO usertable (id, doc) VALUES ($1, $2::jsonb)"};
constexpr Statement kScan = {"ycsb_scan",
                             "SELECT id, doc FROM usertable WHERE id >= $1 ORDER BY id LIMIT $2"};

Status PostgresError(PGconn* connection, const std::string& what) {
  return Status(ErrorCode::kOperationFailed,
                "PostgreSQL " + what + ": " + PQerrorMessage(connection));
}

class PostgresStore : public StoreSession {
 public:
  explicit PostgresStore(ConnectionPtr connection) : connection_(std::move(connection)) {}

  Status Reset() override {
    ResultPtr result(PQexec(connection_.get(),
                            "DROP TABLE IF EXISTS usertable; "
                            "CREATE TABLE usertable (id text PRIMARY KEY, doc jsonb NOT NULL)"));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      return PostgresError(connection_.get(), "could not create usertable");
    }
    return Status::OK();
  }

  Status Insert(const std::string& key, const Record& record) override {
    const std::string json = RecordJson(record);
    return Execute(kInsert, {key.c_str(), json.c_str()}).status();
  }

  StatusWith<int> Read(const std::string& key) override {
    QUARRY_ASSIGN_OR_RETURN(ResultPtr result, Execute(kRead, {key.c_str()}));
    if (PQntuples(result.get()) != 1) return 0;
    return std::max(0, CountRecordFieldsInJson(PQgetvalue(result.get(), 0, 0)));
  }

  StatusWith<bool> Update(const std::string& key, int field_idx,
                          const std::string& value) override {
    QUARRY_ASSIGN_OR_RETURN(
        ResultPtr result,
        Execute(kUpdate, {key.c_str(), FieldName(field_idx).c_str(), value.c_str()}));
    return std::atoi(PQcmdTuples(result.get())) == 1;
  }

  StatusWith<bool> Scan(const std::string& start, int count) override {
    const std::string limit = std::to_string(count);
    QUARRY_ASSIGN_OR_RETURN(ResultPtr result, Execute(kScan, {start.c_str(), limit.c_str()}));
    ScanCheck check(start);
    const int rows = PQntuples(result.get());
    for (int row = 0; row < rows; ++row) {
      check.Add(PQgetvalue(result.get(), row, 0),
                CountRecordFieldsInJson(PQgetvalue(result.get(), row, 1)));
    }
    return check.Passed(count);
  }

 private:
  // Prepares `statement` on its first use: the table must exist by then, so a connection that
  // creates it (Reset) can be made first.
  StatusWith<ResultPtr> Execute(const Statement& statement, std::vector<const char*> values) {
    if (!prepared_.contains(statement.name)) {
      ResultPtr prepared(PQprepare(connection_.get(), statement.name, statement.sql, 0, nullptr));
      if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        return PostgresError(connection_.get(), std::string("could not prepare ") + statement.sql);
      }
      prepared_.insert(statement.name);
    }
    ResultPtr result(PQexecPrepared(connection_.get(), statement.name,
                                    static_cast<int>(values.size()), values.data(), nullptr,
                                    nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      return PostgresError(connection_.get(), statement.name);
    }
    return result;
  }

  ConnectionPtr connection_;
  std::set<std::string, std::less<>> prepared_;  // statement names
};

}  // namespace

StatusWith<std::unique_ptr<StoreSession>> ConnectPostgresStore(int port, const std::string& user) {
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port) +
                               " dbname=postgres connect_timeout=10 user=" + user;
  ConnectionPtr connection(PQconnectdb(conninfo.c_str()));
  if (connection == nullptr || PQstatus(connection.get()) != CONNECTION_OK) {
    return Status(ErrorCode::kHostUnreachable,
                  "cannot reach PostgreSQL on 127.0.0.1:" + std::to_string(port) + ": " +
                      (connection ? PQerrorMessage(connection.get()) : "out of memory"));
  }
  return std::unique_ptr<StoreSession>(std::make_unique<PostgresStore>(std::move(connection)));
}

}  // namespace quarry::bench
