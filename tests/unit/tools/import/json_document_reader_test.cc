#include "tools/import/json_document_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "import_test_util.h"

namespace quarry::tools::importing {
namespace {

using testing::ReadString;

struct Read {
  std::vector<std::string> documents;
  std::vector<std::int64_t> lines;
  Status status = Status::OK();
};

Read ReadAll(const std::string& input, JsonFraming framing, std::size_t max_bytes = 1 << 20) {
  auto file = ReadString(input);
  JsonDocumentReader reader(file.get(), framing, max_bytes);
  Read read;
  while (true) {
    JsonDocumentText text;
    auto next = reader.Next(&text);
    if (!next.ok()) {
      read.status = next.status();
      break;
    }
    if (!next.value()) break;
    EXPECT_GE(text.readable, text.size + 64);
    read.documents.emplace_back(text.data, text.size);
    read.lines.push_back(text.line);
  }
  return read;
}

TEST(JsonDocumentReader, SplitsOneDocumentPerLineAndPrettyPrintedOnes) {
  Read read = ReadAll("{\"a\": 1}\n{\"b\": {\"c\": [1, 2]}}\n\n{\n  \"d\": \"}{\"\n}\n",
                      JsonFraming::kDocuments);
  ASSERT_TRUE(read.status.ok()) << read.status.reason();
  EXPECT_EQ(read.documents, (std::vector<std::string>{"{\"a\": 1}", "{\"b\": {\"c\": [1, 2]}}",
                                                      "{\n  \"d\": \"}{\"\n}"}));
  EXPECT_EQ(read.lines, (std::vector<std::int64_t>{1, 2, 4}));
}

TEST(JsonDocumentReader, BracesInsideStringsAndEscapedQuotesDoNotEndADocument) {
  Read read = ReadAll(R"({"s": "a \"}\" b\\"} {"t": "]"})", JsonFraming::kDocuments);
  ASSERT_TRUE(read.status.ok());
  EXPECT_EQ(read.documents, (std::vector<std::string>{R"({"s": "a \"}\" b\\"})", R"({"t": "]"})"}));
}

TEST(JsonDocumentReader, SingleQuotedStringsOfTheShellSyntaxHideTheirBraces) {
  Read read = ReadAll("{a: 'x}\\'{'}\n{b: \"it's\"}\n", JsonFraming::kDocuments);
  ASSERT_TRUE(read.status.ok()) << read.status.ToString();
  EXPECT_EQ(read.documents, (std::vector<std::string>{"{a: 'x}\\'{'}", "{b: \"it's\"}"}));
}

TEST(JsonDocumentReader, ReadsAnArrayOfDocuments) {
  Read read = ReadAll("\xEF\xBB\xBF [ {\"a\": 1},\n {\"a\": 2} ]\n", JsonFraming::kArray);
  ASSERT_TRUE(read.status.ok()) << read.status.reason();
  EXPECT_EQ(read.documents, (std::vector<std::string>{"{\"a\": 1}", "{\"a\": 2}"}));
  EXPECT_EQ(read.lines, (std::vector<std::int64_t>{1, 2}));
  EXPECT_TRUE(ReadAll("[]", JsonFraming::kArray).status.ok());
}

TEST(JsonDocumentReader, NamesTheLineOfFramingErrors) {
  Read missing_comma = ReadAll("[{\"a\": 1}\n{\"a\": 2}]", JsonFraming::kArray);
  EXPECT_EQ(missing_comma.documents.size(), 1u);
  EXPECT_EQ(missing_comma.status.reason(),
            "line 2: expected ',' or ']' between the array's documents, found '{'");
  EXPECT_EQ(ReadAll("{\"a\": 1}", JsonFraming::kArray).status.reason(),
            "line 1: --jsonArray expects the input to start with '[', found '{'");
  EXPECT_EQ(ReadAll("[{\"a\": 1}", JsonFraming::kArray).status.reason(),
            "line 1: the input ends before the array's closing ']'");
  EXPECT_EQ(ReadAll("[] x", JsonFraming::kArray).status.reason(),
            "line 1: unexpected 'x' after the array's closing ']'");
  EXPECT_EQ(ReadAll("{\"a\": 1}\n42\n", JsonFraming::kDocuments).status.reason(),
            "line 2: expected a document ('{'), found '4'");
  Read truncated = ReadAll("{\"a\": 1}\n{\"b\": [1,\n 2", JsonFraming::kDocuments);
  EXPECT_EQ(truncated.documents.size(), 1u);
  EXPECT_EQ(truncated.status.reason(),
            "line 2: the input ends inside the document that starts here");
}

TEST(JsonDocumentReader, DocumentsLargerThanOneReadCrossRefills) {
  const std::string big(3 << 20, 'x');
  const std::string input = "{\"a\": \"" + big + "\"}\n{\"b\": 2}\n";
  Read read = ReadAll(input, JsonFraming::kDocuments, 8 << 20);
  ASSERT_TRUE(read.status.ok()) << read.status.reason();
  ASSERT_EQ(read.documents.size(), 2u);
  EXPECT_EQ(read.documents[0].size(), big.size() + 9);
  EXPECT_EQ(read.documents[1], "{\"b\": 2}");
}

TEST(JsonDocumentReader, RefusesADocumentBeyondTheLimit) {
  const std::string input = "{\"a\": \"" + std::string(3 << 20, 'x');  // never closed
  Read read = ReadAll(input, JsonFraming::kDocuments, 1 << 20);
  EXPECT_EQ(read.status.code(), ErrorCode::kFailedToParse);
  EXPECT_NE(std::string(read.status.reason()).find("larger than"), std::string::npos);
}

}  // namespace
}  // namespace quarry::tools::importing
