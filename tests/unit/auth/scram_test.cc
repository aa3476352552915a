#include "auth/scram.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>

#include "auth/saslprep.h"

namespace quarry::auth {
namespace {

const EVP_MD* Md(ScramHash hash) { return hash == ScramHash::kSha1 ? EVP_sha1() : EVP_sha256(); }

std::string Hmac(ScramHash hash, const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(Md(hash), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Attribute(const std::string& message, char name) {
  const std::string prefix = std::string(1, name) + "=";
  std::size_t at = message.find(prefix);
  if (at != 0) at = message.find("," + prefix) + 1;
  std::size_t end = message.find(',', at);
  return message.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
}

// A SCRAM client as drivers implement it (RFC 5802), for the password digest `digest`.
struct Client {
  ScramHash hash;
  std::string digest;
  std::string client_first_bare = "n=user,r=fyko+d2lbbFgONRv9qkxdawL";
  std::string auth_message = {};
  std::string salted = {};

  std::string First() const { return "n,," + client_first_bare; }
  std::string Final(const std::string& server_first) {
    const std::string salt = Base64Decode(Attribute(server_first, 's')).value();
    const int iterations = std::stoi(Attribute(server_first, 'i'));
    salted.assign(static_cast<std::size_t>(EVP_MD_get_size(Md(hash))), '\0');
    PKCS5_PBKDF2_HMAC(digest.data(), static_cast<int>(digest.size()),
                      reinterpret_cast<const unsigned char*>(salt.data()),
                      static_cast<int>(salt.size()), iterations, Md(hash),
                      static_cast<int>(salted.size()),
                      reinterpret_cast<unsigned char*>(salted.data()));
    const std::string client_key = Hmac(hash, salted, "Client Key");
    unsigned char stored[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(client_key.data(), client_key.size(), stored, &n, Md(hash), nullptr);
    const std::string without_proof = "c=biws,r=" + Attribute(server_first, 'r');
    auth_message = client_first_bare + "," + server_first + "," + without_proof;
    std::string signature =
        Hmac(hash, std::string(reinterpret_cast<char*>(stored), n), auth_message);
    for (std::size_t i = 0; i < signature.size(); ++i) signature[i] ^= client_key[i];
    return without_proof + ",p=" + Base64Encode(signature);
  }
  std::string ExpectedServerFinal() const {
    return "v=" + Base64Encode(Hmac(hash, Hmac(hash, salted, "Server Key"), auth_message));
  }
};

class ScramTest : public testing::TestWithParam<ScramHash> {};

TEST_P(ScramTest, TheRightPasswordAuthenticatesAndTheServerProvesItKnowsTheKey) {
  const ScramHash hash = GetParam();
  const std::string digest = PasswordDigest(hash, "user", "pencil").value();
  ScramSecrets secrets = MakeSecrets(hash, digest, DefaultIterations(hash));
  EXPECT_EQ(secrets.iteration_count, hash == ScramHash::kSha1 ? 10000 : 15000);

  Client client{hash, digest};
  ScramServer server(hash);
  ASSERT_EQ(server.ReadClientFirst(client.First()).value(), "user");
  const std::string server_first = server.ServerFirst(secrets);
  EXPECT_TRUE(server_first.starts_with("r=fyko+d2lbbFgONRv9qkxdawL"));
  StatusWith<std::string> server_final = server.ReadClientFinal(client.Final(server_first));
  ASSERT_TRUE(server_final.ok()) << server_final.status().ToString();
  EXPECT_EQ(server_final.value(), client.ExpectedServerFinal());
}

TEST_P(ScramTest, AWrongPasswordFailsWithAuthenticationFailed) {
  const ScramHash hash = GetParam();
  ScramSecrets secrets = MakeSecrets(hash, PasswordDigest(hash, "user", "pencil").value(), 4096);
  Client client{hash, PasswordDigest(hash, "user", "pen").value()};
  ScramServer server(hash);
  ASSERT_TRUE(server.ReadClientFirst(client.First()).ok());
  const std::string server_first = server.ServerFirst(secrets);
  EXPECT_EQ(server.ReadClientFinal(client.Final(server_first)).status().code(),
            ErrorCode::kAuthenticationFailed);
}

TEST_P(ScramTest, AFinalMessageWithAnotherNonceIsRefused) {
  const ScramHash hash = GetParam();
  ScramSecrets secrets = MakeSecrets(hash, PasswordDigest(hash, "u", "p").value(), 4096);
  ScramServer server(hash);
  ASSERT_TRUE(server.ReadClientFirst("n,,n=u,r=abc").ok());
  server.ServerFirst(secrets);
  EXPECT_EQ(server.ReadClientFinal("c=biws,r=abcdef,p=AAAA").status().code(), ErrorCode::kBadValue);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, ScramTest,
                         testing::Values(ScramHash::kSha1, ScramHash::kSha256));

TEST(ScramMessagesTest, UserNamesAreDecodedAndChannelBindingIsRefused) {
  ScramServer server(ScramHash::kSha256);
  EXPECT_EQ(server.ReadClientFirst("n,,n=a=2Cb=3Dc,r=x").value(), "a,b=c");
  EXPECT_EQ(server.ReadClientFirst("n,,n=a=2Xb,r=x").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(server.ReadClientFirst("p=tls-unique,,n=a,r=x").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(server.ReadClientFirst("garbage").status().code(), ErrorCode::kBadValue);
}

TEST(ScramPasswordTest, ShaOneHashesMongodsMd5DigestOfUserMongoPassword) {
  EXPECT_EQ(Sha1PasswordDigest("user", "pencil"), "1c33006ec1ffd90f9cadcbcc0e118200");
}

TEST(ScramPasswordTest, Base64RoundTripsAndRefusesGarbage) {
  for (std::string bytes : {std::string(""), std::string("a"), std::string("ab"),
                            std::string("abc"), std::string("\0\xff\x10", 3)}) {
    EXPECT_EQ(Base64Decode(Base64Encode(bytes)).value(), bytes);
  }
  EXPECT_FALSE(Base64Decode("abc").ok());
  EXPECT_FALSE(Base64Decode("a!==").ok());
}

TEST(SaslPrepTest, PreparesAsRfc4013) {
  EXPECT_EQ(SaslPrep("pencil").value(), "pencil");
  EXPECT_EQ(SaslPrep("I\xC2\xADX").value(), "IX");    // soft hyphen maps to nothing
  EXPECT_EQ(SaslPrep("\xE2\x85\xA8").value(), "IX");  // roman numeral nine, NFKC
  EXPECT_EQ(SaslPrep("a\xC2\xA0"
                     "b")
                .value(),
            "a b");  // no-break space maps to space
  EXPECT_EQ(SaslPrep("\x07").status().code(), ErrorCode::kBadValue);  // prohibited
  EXPECT_EQ(SaslPrep("\xD8\xA7"
                     "1")
                .status()
                .code(),
            ErrorCode::kBadValue);  // bidi rule
}

}  // namespace
}  // namespace quarry::auth
