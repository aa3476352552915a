#include "auth/user_digest.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::auth {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(UserDigestTest, IsTheSha256OfUserAtDbAsMongodsSessionUid) {
  EXPECT_EQ(Hex(UserDigest("ann", "admin")),
            "daa1f0e616a6ece27ba58c6ea51f6c3a81b79d85ee88057c25c9da52ea283699");
  EXPECT_NE(UserDigest("ann", "admin"), UserDigest("ann", "shop"));
}

TEST(UserDigestTest, NoUserIsTheSha256OfTheEmptyString) {
  EXPECT_EQ(Hex(NoUserDigest()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace quarry::auth
