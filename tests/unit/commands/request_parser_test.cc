// RequestParser: a command's fields read with mongod's IDL errors, so that an unknown, mistyped
// or missing field fails the same way in every command.
#include "commands/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

class RequestParserTest : public ::testing::Test {
 protected:
  // A request with body `json` on database "db".
  const Request& RequestOf(std::string_view json) {
    body_ = Doc(json);
    request_ = Request();
    request_.body = body_;
    request_.name = request_.body.FirstKey();
    request_.db = "db";
    return request_;
  }

  bson::Document body_;
  Request request_;
};

TEST_F(RequestParserTest, UnknownFieldFailsNamingTheCommandAndTheField) {
  RequestParser args(RequestOf(R"({"find": "c", "filter": {}, "bogus": 1})"));
  ASSERT_TRUE(args.OptionalDocument("filter").ok());
  Status finished = args.Finish();
  EXPECT_EQ(finished.code(), ErrorCode::kLocation40415);
  EXPECT_EQ(finished.reason(), "BSON field 'find.bogus' is an unknown field.");
}

TEST_F(RequestParserTest, GenericArgumentsAreAcceptedWithoutBeingRead) {
  RequestParser args(RequestOf(R"({"find": "c", "$db": "db", "lsid": {"id": 1}, "txnNumber": 1,
      "maxTimeMS": 5, "writeConcern": {"w": 1}, "readConcern": {}, "comment": "why",
      "$readPreference": {"mode": "primary"}, "$clusterTime": {}, "apiVersion": "1"})"));
  EXPECT_TRUE(args.Finish().ok());
  for (const char* key : {"$db", "lsid", "maxTimeMS", "writeConcern", "comment"}) {
    EXPECT_TRUE(IsGenericArgument(key)) << key;
  }
  EXPECT_FALSE(IsGenericArgument("filter"));
}

// Past its 64th field a body's fields are still checked: read ones pass, unknown ones fail.
// The keys asked for are built on the fly and gone before Finish, as a caller's may be.
TEST_F(RequestParserTest, FieldsPastTheSixtyFourthAreCheckedLikeTheFirst) {
  std::string json = R"({"find": "c")";
  for (int i = 1; i <= 70; ++i) json += ", \"f" + std::to_string(i) + "\": " + std::to_string(i);
  const std::string unknown = json + R"(, "bogus": 1})";
  json += "}";
  auto read_all = [](RequestParser& args, int first) {
    for (int i = first; i <= 70; ++i) {
      StatusWith<std::int64_t> value = args.OptionalInt("f" + std::to_string(i), 0);
      ASSERT_TRUE(value.ok());
      EXPECT_EQ(value.value(), i);
    }
  };
  RequestParser all_read(RequestOf(json));
  read_all(all_read, 1);
  EXPECT_TRUE(all_read.Finish().ok());
  RequestParser one_unread(RequestOf(unknown));
  read_all(one_unread, 1);
  Status finished = one_unread.Finish();
  EXPECT_EQ(finished.code(), ErrorCode::kLocation40415);
  EXPECT_EQ(finished.reason(), "BSON field 'find.bogus' is an unknown field.");
  RequestParser early_unread(RequestOf(json));
  read_all(early_unread, 2);
  EXPECT_EQ(early_unread.Finish().reason(), "BSON field 'find.f1' is an unknown field.");
}

// A field repeated under a key an accessor read is that field, as mongod's parser reads it.
TEST_F(RequestParserTest, ARepeatedFieldIsKnownWhenItsKeyIsRead) {
  RequestParser args(RequestOf(R"({"find": "c", "limit": 1, "limit": 2})"));
  ASSERT_TRUE(args.OptionalInt("limit", 0).ok());
  EXPECT_TRUE(args.Finish().ok());
}

// Absent keys are told apart from present ones however alike they look (same length, same
// first and last bytes), and a repeated command name counts as read.
TEST_F(RequestParserTest, LookalikeKeysAreAbsentAndPresentOnesAreFound) {
  RequestParser args(RequestOf(R"({"find": "c", "abc": 1, "axc": 2, "find": "d"})"));
  for (std::string key : {"abd", "xbc", "aac", "ab", "abcc", "a", "", "fnd", "fine"}) {
    EXPECT_FALSE(args.Raw(key).exists()) << key;
  }
  for (int i = 0; i < 200; ++i) {
    EXPECT_FALSE(args.Raw("k" + std::to_string(i)).exists()) << i;
  }
  EXPECT_EQ(args.Raw("axc").AsInt64(), 2);
  EXPECT_EQ(args.Raw("abc").AsInt64(), 1);
  EXPECT_TRUE(args.Finish().ok());
}

TEST_F(RequestParserTest, IgnoredFieldsAreAcceptedAndOthersAreNot) {
  const char* body = R"({"insert": "c", "let": {}})";
  RequestParser ignoring(RequestOf(body));
  ignoring.Ignore({"let"});
  EXPECT_TRUE(ignoring.Finish().ok());
  RequestParser strict(RequestOf(body));
  EXPECT_EQ(strict.Finish().code(), ErrorCode::kLocation40415);
}

TEST_F(RequestParserTest, WrongTypeFailsWithTypeMismatchNamingBothTypes) {
  RequestParser args(
      RequestOf(R"({"find": "c", "filter": 5, "single": "yes", "skip": "x", "hint": 1})"));
  StatusWith<bson::DocumentView> filter = args.OptionalDocument("filter");
  EXPECT_EQ(filter.status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(filter.status().reason(),
            "BSON field 'find.filter' is the wrong type 'int', expected type 'object'");
  StatusWith<bool> single = args.OptionalBool("single", false);
  EXPECT_EQ(single.status().code(), ErrorCode::kTypeMismatch);
  EXPECT_NE(single.status().reason().find("expected type 'bool'"), std::string_view::npos);
  EXPECT_EQ(args.OptionalInt("skip", 0).status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(args.OptionalString("hint", "").status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(args.MaybeDocument("filter").status().code(), ErrorCode::kTypeMismatch);
}

TEST_F(RequestParserTest, MissingRequiredFieldFailsWith40414) {
  RequestParser args(RequestOf(R"({"createIndexes": "c"})"));
  StatusWith<bson::DocumentView> missing = args.RequiredDocument("key");
  EXPECT_EQ(missing.status().code(), ErrorCode::kLocation40414);
  EXPECT_EQ(missing.status().reason(),
            "BSON field 'createIndexes.key' is missing but a required field");
  EXPECT_EQ(args.RequiredString("name").status().code(), ErrorCode::kLocation40414);
}

TEST_F(RequestParserTest, AbsentOrNullFieldsGiveTheirDefaults) {
  RequestParser args(RequestOf(R"({"find": "c", "skip": null, "filter": null})"));
  EXPECT_EQ(args.OptionalInt("skip", 7).value(), 7);
  EXPECT_EQ(args.OptionalInt("limit", 3).value(), 3);
  EXPECT_TRUE(args.OptionalDocument("filter").value().empty());
  EXPECT_FALSE(args.MaybeDocument("filter").value().has_value());
  EXPECT_TRUE(args.OptionalBool("single", true).value());
  EXPECT_EQ(args.OptionalString("hint", "none").value(), "none");
  EXPECT_TRUE(args.Finish().ok());
}

TEST_F(RequestParserTest, PresentFieldsAreRead) {
  RequestParser args(RequestOf(
      R"({"find": "c", "skip": 4, "filter": {"a": 1}, "single": 1, "hint": "a_1", "q": {}})"));
  EXPECT_EQ(args.CollectionName().value(), "c");
  EXPECT_EQ(args.OptionalNonNegative("skip", 0).value(), 4);
  EXPECT_EQ(args.OptionalDocument("filter").value().Get("a").AsInt64(), 1);
  EXPECT_TRUE(args.OptionalBool("single", false).value());  // numbers are accepted as bools
  EXPECT_EQ(args.RequiredString("hint").value(), "a_1");
  EXPECT_TRUE(args.RequiredDocument("q").ok());
  EXPECT_TRUE(args.Finish().ok());
}

TEST_F(RequestParserTest, NumbersMustBeWholeAndCountsNonNegative) {
  RequestParser args(RequestOf(R"({"find": "c", "skip": -1, "limit": 1.5})"));
  StatusWith<std::int64_t> skip = args.OptionalNonNegative("skip", 0);
  EXPECT_EQ(skip.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(skip.status().reason(), "BSON field 'skip' value must be >= 0, actual value '-1'");
  EXPECT_EQ(args.OptionalInt("limit", 0).status().code(), ErrorCode::kBadValue);
}

TEST_F(RequestParserTest, CollectionNameMustBeANonEmptyString) {
  RequestParser number(RequestOf(R"({"find": 1})"));
  EXPECT_EQ(number.CollectionName().status().code(), ErrorCode::kInvalidNamespace);
  RequestParser empty(RequestOf(R"({"find": ""})"));
  StatusWith<std::string> name = empty.CollectionName();
  EXPECT_EQ(name.status().code(), ErrorCode::kInvalidNamespace);
  EXPECT_EQ(name.status().reason(), "Invalid namespace specified 'db.'");
}

TEST_F(RequestParserTest, DocumentSequencesAreFieldsToo) {
  const std::vector<bson::DocumentView> docs;
  const Request& request = RequestOf(R"({"insert": "c"})");
  request_.sequences.push_back({"documents", &docs});
  RequestParser unread(request);
  Status finished = unread.Finish();
  EXPECT_EQ(finished.code(), ErrorCode::kLocation40415);
  EXPECT_EQ(finished.reason(), "BSON field 'insert.documents' is an unknown field.");
  RequestParser read(request);
  read.Raw(std::string("documents"));  // a temporary key, gone before Finish
  EXPECT_TRUE(read.Finish().ok());
}

TEST_F(RequestParserTest, DocumentsComeFromASequenceOrTheBody) {
  bson::Document a = Doc(R"({"_id": 1})");
  const std::vector<bson::DocumentView> sequence = {a};
  const Request& with_sequence = RequestOf(R"({"insert": "c"})");
  request_.sequences.push_back({"documents", &sequence});
  StatusWith<std::vector<bson::DocumentView>> from_sequence = with_sequence.Documents("documents");
  ASSERT_TRUE(from_sequence.ok());
  EXPECT_EQ(from_sequence.value().size(), 1u);

  StatusWith<std::vector<bson::DocumentView>> from_body =
      RequestOf(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]})").Documents("documents");
  ASSERT_TRUE(from_body.ok());
  EXPECT_EQ(from_body.value().size(), 2u);
  EXPECT_EQ(RequestOf(R"({"insert": "c", "documents": {}})").Documents("documents").status().code(),
            ErrorCode::kTypeMismatch);
  EXPECT_EQ(
      RequestOf(R"({"insert": "c", "documents": [1]})").Documents("documents").status().code(),
      ErrorCode::kTypeMismatch);
}

}  // namespace
}  // namespace quarry::commands
