// A libmongoc 1.23 client signing in to a quarryd started with --auth: SCRAM-SHA-256 and
// SCRAM-SHA-1 named in the URI, the mechanism the driver negotiates itself, reads and writes
// after signing in, a wrong password and an unknown user refused, and no access without
// signing in.
// Usage: quarry_libmongoc_auth_test  with env QUARRY_URI ("mongodb://host:port"),
// QUARRY_AUTH_USER and QUARRY_AUTH_PASSWORD (a user of admin with both mechanisms and
// readWrite on quarry_libmongoc_auth), and optionally QUARRY_URI_OPTIONS. Prints one line per
// failed check and a final `N passed, N failed`; exits non-zero if any check failed.
// tests/integration/auth/test_libmongoc_auth.py creates the user and runs this.
#include <mongoc/mongoc.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "checks.h"

namespace {

using quarry_libmongoc::Check;
using quarry_libmongoc::ErrorText;

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// "mongodb://[user:password@]host:port/?<options>"; credentials are percent-encoded by the
// caller's choice of plain ASCII names.
std::string MakeUri(const std::string& base, const std::string& credentials,
                    const std::string& options) {
  std::string uri = base;
  while (!uri.empty() && uri.back() == '/') uri.pop_back();
  const std::string scheme = "mongodb://";
  if (!credentials.empty()) uri.insert(scheme.size(), credentials + "@");
  uri += "/?serverSelectionTimeoutMS=5000&appname=quarry-libmongoc-auth";
  if (!options.empty()) uri += "&" + options;
  if (const std::string extra = Getenv("QUARRY_URI_OPTIONS"); !extra.empty()) uri += "&" + extra;
  return uri;
}

mongoc_client_t* Connect(const std::string& uri_text, const std::string& round) {
  bson_error_t error;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(uri_text.c_str(), &error);
  Check(uri != nullptr, round, "parse URI", uri ? "" : ErrorText(error));
  if (uri == nullptr) return nullptr;
  mongoc_client_t* client = mongoc_client_new_from_uri(uri);
  mongoc_uri_destroy(uri);
  if (client != nullptr) mongoc_client_set_error_api(client, MONGOC_ERROR_API_VERSION_2);
  return client;
}

// The user connectionStatus reports the connection signed in as, "" when none.
std::string SignedInAs(mongoc_client_t* client, bson_error_t* error) {
  bson_t* command = BCON_NEW("connectionStatus", BCON_INT32(1));
  bson_t reply;
  std::string user;
  if (mongoc_client_command_simple(client, "admin", command, nullptr, &reply, error)) {
    bson_iter_t iter;
    if (bson_iter_init(&iter, &reply) &&
        bson_iter_find_descendant(&iter, "authInfo.authenticatedUsers.0.user", &iter) &&
        BSON_ITER_HOLDS_UTF8(&iter)) {
      user = bson_iter_utf8(&iter, nullptr);
    }
  }
  bson_destroy(&reply);
  bson_destroy(command);
  return user;
}

// Signs in with `mechanism` ("" lets the driver choose), then writes and reads a document.
void SignInAndWork(const std::string& base, const std::string& user, const std::string& password,
                   const std::string& mechanism) {
  const std::string round = mechanism.empty() ? "negotiated mechanism" : mechanism;
  std::string options = "authSource=admin";
  if (!mechanism.empty()) options += "&authMechanism=" + mechanism;
  mongoc_client_t* client = Connect(MakeUri(base, user + ":" + password, options), round);
  if (client == nullptr) return;
  bson_error_t error;
  const std::string signed_in = SignedInAs(client, &error);
  Check(signed_in == user, round, "connectionStatus names the user",
        signed_in.empty() ? ErrorText(error) : signed_in);

  mongoc_collection_t* coll =
      mongoc_client_get_collection(client, "quarry_libmongoc_auth", "items");
  const std::string tag = "written with " + round;
  bson_t* doc = BCON_NEW("tag", BCON_UTF8(tag.c_str()));
  bool ok = mongoc_collection_insert_one(coll, doc, nullptr, nullptr, &error);
  Check(ok, round, "insert_one after signing in", ok ? "" : ErrorText(error));
  bson_t* filter = BCON_NEW("tag", BCON_UTF8(tag.c_str()));
  const std::int64_t count =
      mongoc_collection_count_documents(coll, filter, nullptr, nullptr, nullptr, &error);
  Check(count == 1, round, "count_documents finds the document",
        count < 0 ? ErrorText(error) : std::to_string(count));
  bson_destroy(filter);
  bson_destroy(doc);
  mongoc_collection_destroy(coll);
  mongoc_client_destroy(client);
}

// A ping with these credentials fails to authenticate: the driver reports
// MONGOC_ERROR_CLIENT_AUTHENTICATE with the server's "Authentication failed.".
void RefusedSignIn(const std::string& base, const std::string& credentials,
                   const std::string& mechanism, const std::string& round) {
  mongoc_client_t* client =
      Connect(MakeUri(base, credentials, "authSource=admin&authMechanism=" + mechanism), round);
  if (client == nullptr) return;
  bson_t* ping = BCON_NEW("ping", BCON_INT32(1));
  bson_error_t error;
  const bool ok = mongoc_client_command_simple(client, "admin", ping, nullptr, nullptr, &error);
  Check(
      !ok && error.domain == MONGOC_ERROR_CLIENT && error.code == MONGOC_ERROR_CLIENT_AUTHENTICATE,
      round, "the command fails to authenticate", ok ? "ping succeeded" : ErrorText(error));
  Check(!ok && std::string(error.message).find("Authentication failed") != std::string::npos, round,
        "the error says Authentication failed", ok ? "" : error.message);
  bson_destroy(ping);
  mongoc_client_destroy(client);
}

// Without credentials a find is refused with 13 Unauthorized.
void NoSignIn(const std::string& base) {
  const std::string round = "no credentials";
  mongoc_client_t* client = Connect(MakeUri(base, "", ""), round);
  if (client == nullptr) return;
  mongoc_collection_t* coll =
      mongoc_client_get_collection(client, "quarry_libmongoc_auth", "items");
  bson_t empty = BSON_INITIALIZER;
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll, &empty, nullptr, nullptr);
  const bson_t* doc;
  const bool got = mongoc_cursor_next(cursor, &doc);
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor, &error);
  Check(!got && failed && error.code == 13, round, "find fails with 13 Unauthorized",
        failed ? ErrorText(error) : "find succeeded");
  mongoc_cursor_destroy(cursor);
  mongoc_collection_destroy(coll);
  mongoc_client_destroy(client);
}

}  // namespace

int main() {
  const std::string base = Getenv("QUARRY_URI");
  const std::string user = Getenv("QUARRY_AUTH_USER");
  const std::string password = Getenv("QUARRY_AUTH_PASSWORD");
  if (base.empty() || user.empty() || password.empty()) {
    std::fprintf(stderr, "set QUARRY_URI, QUARRY_AUTH_USER and QUARRY_AUTH_PASSWORD\n");
    return 2;
  }
  mongoc_init();
  for (const char* mechanism : {"SCRAM-SHA-256", "SCRAM-SHA-1", ""}) {
    SignInAndWork(base, user, password, mechanism);
  }
  for (const char* mechanism : {"SCRAM-SHA-256", "SCRAM-SHA-1"}) {
    RefusedSignIn(base, user + ":wrong-" + password, mechanism,
                  std::string(mechanism) + ", wrong password");
  }
  RefusedSignIn(base, "nobody:" + password, "SCRAM-SHA-256", "unknown user");
  NoSignIn(base);
  mongoc_cleanup();
  return quarry_libmongoc::PrintSummary();
}
