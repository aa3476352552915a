// The digest mongod identifies a user's logical sessions by (a session's `uid`).
#pragma once

#include <string>
#include <string_view>

namespace quarry::auth {

// The 32-byte SHA-256 of "user@db", as mongod's User::getDigest.
std::string UserDigest(std::string_view user, std::string_view db);

// The 32-byte SHA-256 of the empty string: the uid of every session when authentication is
// off. No user's digest equals it, since every user's full name holds an '@'.
const std::string& NoUserDigest();

}  // namespace quarry::auth
