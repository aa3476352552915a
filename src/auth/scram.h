// SCRAM-SHA-1 and SCRAM-SHA-256 (RFC 5802, RFC 7677) as mongod speaks them: the credentials a
// user document stores, and the server's side of one authentication conversation.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::auth {

enum class ScramHash : unsigned char { kSha1, kSha256 };

// "SCRAM-SHA-1" / "SCRAM-SHA-256".
std::string_view MechanismName(ScramHash hash);
// mongod's default iteration counts: 10000 for SHA-1, 15000 for SHA-256.
int DefaultIterations(ScramHash hash);

// What `credentials.<mechanism>` stores: never the password. Salt and keys are base64.
struct ScramSecrets {
  int iteration_count = 0;
  std::string salt;
  std::string stored_key;
  std::string server_key;
};

// The password as each mechanism hashes it: SCRAM-SHA-1 takes mongod's MD5 digest of
// "user:mongo:password" (hex); SCRAM-SHA-256 the SASLprepped password (BadValue when it
// cannot be prepared).
std::string Sha1PasswordDigest(std::string_view user, std::string_view password);
StatusWith<std::string> PasswordDigest(ScramHash hash, std::string_view user,
                                       std::string_view password);

// New secrets with a random salt.
ScramSecrets MakeSecrets(ScramHash hash, std::string_view password_digest, int iterations);

std::string Base64Encode(std::string_view bytes);
// Fails with BadValue on anything but padded base64.
StatusWith<std::string> Base64Decode(std::string_view text);

// The server's side of one SCRAM conversation. Not thread-safe.
class ScramServer {
 public:
  explicit ScramServer(ScramHash hash) : hash_(hash) {}

  ScramHash hash() const { return hash_; }

  // Reads client-first-message; returns the user name it names (decoded from "n=").
  // BadValue for a malformed message or one asking for channel binding.
  StatusWith<std::string> ReadClientFirst(std::string_view message);
  // server-first-message for the user's stored secrets.
  std::string ServerFirst(const ScramSecrets& secrets);
  // Checks client-final-message's proof; returns server-final-message ("v=..."). Fails with
  // AuthenticationFailed for a wrong proof, BadValue for a malformed message.
  StatusWith<std::string> ReadClientFinal(std::string_view message);

 private:
  ScramHash hash_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string client_nonce_;
  std::string server_first_;
  std::string nonce_;
  ScramSecrets secrets_;
};

}  // namespace quarry::auth
