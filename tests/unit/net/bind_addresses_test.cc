#include "net/bind_addresses.h"

#include <gtest/gtest.h>

namespace quarry::net {
namespace {

using Addresses = std::vector<std::string>;

TEST(BindAddressesTest, LocalhostMeansBothLoopbackAddresses) {
  EXPECT_EQ(ExpandBindAddresses({"localhost"}), (Addresses{"127.0.0.1", "::1"}));
}

TEST(BindAddressesTest, CommaSeparatedListsAreSplitTrimmedAndDeduplicated) {
  EXPECT_EQ(ExpandBindAddresses({"127.0.0.1, 10.0.0.5,,localhost", "::1", "10.0.0.5"}),
            (Addresses{"127.0.0.1", "10.0.0.5", "::1"}));
}

TEST(BindAddressesTest, EmptyInputGivesNoAddresses) {
  EXPECT_TRUE(ExpandBindAddresses({}).empty());
  EXPECT_TRUE(ExpandBindAddresses({" , "}).empty());
}

TEST(BindAddressesTest, HostPortBracketsIpv6) {
  EXPECT_EQ(FormatHostPort("127.0.0.1", 27017), "127.0.0.1:27017");
  EXPECT_EQ(FormatHostPort("::1", 27017), "[::1]:27017");
  EXPECT_EQ(FormatHostPort("db.example", 1), "db.example:1");
}

}  // namespace
}  // namespace quarry::net
