#include "base/status.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

StatusWith<int> Half(int n) {
  if (n % 2 != 0) return Status(ErrorCode::kBadValue, "odd");
  return n / 2;
}

StatusWith<int> Quarter(int n) {
  QUARRY_ASSIGN_OR_RETURN(int half, Half(n));
  QUARRY_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kOk);
}

TEST(StatusTest, CodeNamesAreMongoDbs) {
  EXPECT_EQ(ErrorCodeName(ErrorCode::kDuplicateKey), "DuplicateKey");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kCommandNotFound), "CommandNotFound");
  EXPECT_EQ(static_cast<int>(ErrorCode::kCommandNotFound), 59);
  EXPECT_EQ(ErrorCodeName(static_cast<ErrorCode>(40324)), "Location40324");
}

TEST(StatusTest, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(Quarter(8).value(), 2);
  StatusWith<int> odd = Quarter(6);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), ErrorCode::kBadValue);
}

TEST(StatusTest, ExtraInfoTravelsWithTheStatus) {
  Status s = Status(ErrorCode::kDuplicateKey, "dup").WithExtraInfo("xyz");
  EXPECT_EQ(s.extra_info(), "xyz");
  EXPECT_EQ(s.WithContext("insert").reason(), "insert: dup");
  EXPECT_EQ(s.WithContext("insert").extra_info(), "xyz");
}

TEST(StatusTest, CategoriesComeFromTheTable) {
  EXPECT_TRUE(IsInCategory(ErrorCode::kChecksumMismatch, kCloseConnection));
  EXPECT_FALSE(IsInCategory(ErrorCode::kBadValue, kCloseConnection));
}

}  // namespace
}  // namespace quarry
