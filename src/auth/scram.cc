// SCRAM on OpenSSL's primitives: PBKDF2, HMAC, SHA-1/SHA-256, MD5 (mongod's SCRAM-SHA-1 password
// digest), RAND_bytes and base64.
#include "auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <vector>

#include "auth/saslprep.h"

namespace quarry::auth {
namespace {

constexpr std::size_t kSaltBytes = 16;        // SHA-1's salt is 16 bytes in mongod
constexpr std::size_t kSha256SaltBytes = 28;  // and SHA-256's 28
constexpr std::size_t kServerNonceBytes = 24;

const EVP_MD* Md(ScramHash hash) { return hash == ScramHash::kSha1 ? EVP_sha1() : EVP_sha256(); }

std::string RandomBytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    // RAND_bytes fails only without an entropy source; a predictable salt or nonce would be
    // worse than stopping.
    std::abort();
  }
  return out;
}

std::string Hmac(ScramHash hash, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(Md(hash), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
  return std::string(reinterpret_cast<char*>(out), length);
}

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), out, &length, md, nullptr);
  return std::string(reinterpret_cast<char*>(out), length);
}

std::string SaltedPassword(ScramHash hash, std::string_view digest, std::string_view salt,
                           int iterations) {
  std::string out(static_cast<std::size_t>(EVP_MD_get_size(Md(hash))), '\0');
  PKCS5_PBKDF2_HMAC(digest.data(), static_cast<int>(digest.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, Md(hash),
                    static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

// The value of attribute `name` ("r", "p", ...) in a comma-separated SCRAM message.
std::string_view Attribute(std::string_view message, char name) {
  std::size_t pos = 0;
  while (pos <= message.size()) {
    std::size_t end = message.find(',', pos);
    if (end == std::string_view::npos) end = message.size();
    std::string_view part = message.substr(pos, end - pos);
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return part.substr(2);
    pos = end + 1;
  }
  return {};
}

Status Malformed(std::string_view what) {
  return Status(ErrorCode::kBadValue, "Incorrect SCRAM " + std::string(what));
}

// RFC 5802's saslname: "=2C" is ',' and "=3D" is '='; any other '=' is an error.
StatusWith<std::string> DecodeSaslName(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '=') {
      out.push_back(name[i]);
      continue;
    }
    std::string_view escape = name.substr(i + 1, 2);
    if (escape == "2C") {
      out.push_back(',');
    } else if (escape == "3D") {
      out.push_back('=');
    } else {
      return Malformed("user name encoding");
    }
    i += 2;
  }
  return out;
}

}  // namespace

std::string_view MechanismName(ScramHash hash) {
  return hash == ScramHash::kSha1 ? "SCRAM-SHA-1" : "SCRAM-SHA-256";
}

int DefaultIterations(ScramHash hash) { return hash == ScramHash::kSha1 ? 10000 : 15000; }

std::string Sha1PasswordDigest(std::string_view user, std::string_view password) {
  std::string input = std::string(user) + ":mongo:" + std::string(password);
  std::string md5 = Digest(EVP_md5(), input);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : md5) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0xf]);
  }
  return hex;
}

StatusWith<std::string> PasswordDigest(ScramHash hash, std::string_view user,
                                       std::string_view password) {
  if (hash == ScramHash::kSha1) return Sha1PasswordDigest(user, password);
  return SaslPrep(password);
}

ScramSecrets MakeSecrets(ScramHash hash, std::string_view password_digest, int iterations) {
  const std::string salt = RandomBytes(hash == ScramHash::kSha1 ? kSaltBytes : kSha256SaltBytes);
  const std::string salted = SaltedPassword(hash, password_digest, salt, iterations);
  const std::string client_key = Hmac(hash, salted, "Client Key");
  return ScramSecrets{.iteration_count = iterations,
                      .salt = Base64Encode(salt),
                      .stored_key = Base64Encode(Digest(Md(hash), client_key)),
                      .server_key = Base64Encode(Hmac(hash, salted, "Server Key"))};
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

StatusWith<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status(ErrorCode::kBadValue, "invalid base64");
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return Status(ErrorCode::kBadValue, "invalid base64");
  // EVP_DecodeBlock counts the padding as zero bytes.
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

StatusWith<std::string> ScramServer::ReadClientFirst(std::string_view message) {
  // gs2-header: "n,," or "y,," (no channel binding), optionally with "a=authzid".
  if (message.size() < 3 || (message[0] != 'n' && message[0] != 'y') || message[1] != ',') {
    if (!message.empty() && message[0] == 'p')
      return Status(ErrorCode::kBadValue, "Server does not support channel binding");
    return Malformed("client-first-message");
  }
  const std::size_t bare_start = message.find(',', 2);
  if (bare_start == std::string_view::npos) return Malformed("client-first-message");
  std::string_view authzid = message.substr(2, bare_start - 2);
  if (!authzid.empty() && !authzid.starts_with("a=")) return Malformed("authzid");
  gs2_header_ = std::string(message.substr(0, bare_start + 1));
  client_first_bare_ = std::string(message.substr(bare_start + 1));
  if (!client_first_bare_.starts_with("n=")) return Malformed("user name");
  std::string_view user = Attribute(client_first_bare_, 'n');
  client_nonce_ = std::string(Attribute(client_first_bare_, 'r'));
  if (user.empty() || client_nonce_.empty()) return Malformed("client-first-message");
  QUARRY_ASSIGN_OR_RETURN(std::string decoded, DecodeSaslName(user));
  if (!authzid.empty()) {
    QUARRY_ASSIGN_OR_RETURN(std::string authz, DecodeSaslName(authzid.substr(2)));
    if (authz != decoded) {
      return Status(ErrorCode::kBadValue,
                    "SCRAM user name " + decoded + " does not match authzid " + authz);
    }
  }
  return decoded;
}

std::string ScramServer::ServerFirst(const ScramSecrets& secrets) {
  secrets_ = secrets;
  nonce_ = client_nonce_ + Base64Encode(RandomBytes(kServerNonceBytes));
  server_first_ =
      "r=" + nonce_ + ",s=" + secrets.salt + ",i=" + std::to_string(secrets.iteration_count);
  return server_first_;
}

StatusWith<std::string> ScramServer::ReadClientFinal(std::string_view message) {
  const std::size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return Malformed("client-final-message");
  std::string_view without_proof = message.substr(0, proof_at);
  if (Attribute(without_proof, 'c') != Base64Encode(gs2_header_)) {
    return Status(ErrorCode::kBadValue, "Unmatched SCRAM channel binding attribute");
  }
  if (Attribute(without_proof, 'r') != nonce_) {
    return Status(ErrorCode::kBadValue, "Unmatched SCRAM nonce received from client");
  }
  QUARRY_ASSIGN_OR_RETURN(std::string proof, Base64Decode(message.substr(proof_at + 3)));
  StatusWith<std::string> stored_key = Base64Decode(secrets_.stored_key);
  StatusWith<std::string> server_key = Base64Decode(secrets_.server_key);
  if (!stored_key.ok() || !server_key.ok()) {
    return Status(ErrorCode::kAuthenticationFailed, "stored SCRAM credentials are damaged");
  }
  const std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string signature = Hmac(hash_, stored_key.value(), auth_message);
  if (proof.size() != signature.size()) {
    return Status(ErrorCode::kAuthenticationFailed, "SCRAM proof has the wrong length");
  }
  std::string client_key(proof.size(), '\0');
  for (std::size_t i = 0; i < proof.size(); ++i) client_key[i] = proof[i] ^ signature[i];
  const std::string computed = Digest(Md(hash_), client_key);
  if (computed.size() != stored_key.value().size() ||
      CRYPTO_memcmp(computed.data(), stored_key.value().data(), computed.size()) != 0) {
    return Status(ErrorCode::kAuthenticationFailed, "SCRAM proof is not correct");
  }
  return "v=" + Base64Encode(Hmac(hash_, server_key.value(), auth_message));
}

}  // namespace quarry::auth
