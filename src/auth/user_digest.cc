#include "auth/user_digest.h"

#include <openssl/evp.h>

namespace quarry::auth {
namespace {

std::string Sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), out, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), length);
}

}  // namespace

std::string UserDigest(std::string_view user, std::string_view db) {
  std::string name(user);
  name += '@';
  name += db;
  return Sha256(name);
}

const std::string& NoUserDigest() {
  static const std::string digest = Sha256("");
  return digest;
}

}  // namespace quarry::auth
