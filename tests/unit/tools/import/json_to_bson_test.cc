#include "tools/import/json_to_bson.h"

#include <gtest/gtest.h>

#include <string>

#include "import_test_util.h"

namespace quarry::tools::importing {
namespace {

using testing::Canonical;

// The canonical Extended JSON of `json` converted, or "error: <reason>".
std::string Convert(const std::string& json) {
  JsonToBson converter;
  bson_t doc = BSON_INITIALIZER;
  Status status = converter.Convert(json.data(), json.size(), json.size(), &doc);
  std::string result = status.ok() ? Canonical(&doc) : "error: " + std::string(status.reason());
  bson_destroy(&doc);
  return result;
}

TEST(JsonToBson, PlainJsonTypes) {
  EXPECT_EQ(
      Convert(
          R"j({"s": "x\u00e9\n", "t": true, "f": false, "n": null, "a": [1, "b", {}], "d": {"e": []}})j"),
      R"j({ "s" : "xé\n", "t" : true, "f" : false, "n" : null, "a" : [ { "$numberInt" : "1" }, "b", {  } ], )j"
      R"j("d" : { "e" : [  ] } })j");
}

TEST(JsonToBson, IntegersTakeTheSmallestTypeAsMongoimportDoes) {
  EXPECT_EQ(
      Convert(
          R"j({"a": 2147483647, "b": 2147483648, "c": -2147483649, "d": 1.0, "e": 1e2, "f": 18446744073709551616})j"),
      R"j({ "a" : { "$numberInt" : "2147483647" }, "b" : { "$numberLong" : "2147483648" }, )j"
      R"j("c" : { "$numberLong" : "-2147483649" }, "d" : { "$numberDouble" : "1.0" }, )j"
      R"j("e" : { "$numberDouble" : "100.0" }, "f" : { "$numberDouble" : "18446744073709551616.0" } })j");
}

TEST(JsonToBson, CanonicalExtendedJsonRoundTrips) {
  const std::string canonical =
      R"j({ "_id" : { "$oid" : "5f1d7f3e9d1b2c3a4b5c6d7e" }, "i" : { "$numberInt" : "-7" }, )j"
      R"j("l" : { "$numberLong" : "9007199254740993" }, "d" : { "$numberDouble" : "-Infinity" }, )j"
      R"j("m" : { "$numberDecimal" : "1.10" }, "dt" : { "$date" : { "$numberLong" : "-86400000" } }, )j"
      R"j("b" : { "$binary" : { "base64" : "AQID", "subType" : "80" } }, )j"
      R"j("u" : { "$binary" : { "base64" : "ASNFZ4mrze8BI0VniavN7w==", "subType" : "04" } }, )j"
      R"j("r" : { "$regularExpression" : { "pattern" : "^a.c$", "options" : "im" } }, )j"
      R"j("ts" : { "$timestamp" : { "t" : 4294967295, "i" : 1 } }, "min" : { "$minKey" : 1 }, )j"
      R"j("max" : { "$maxKey" : 1 }, "un" : { "$undefined" : true }, "sy" : { "$symbol" : "s" }, )j"
      R"j("c" : { "$code" : "f()" }, "cs" : { "$code" : "g()", "$scope" : { "x" : { "$numberInt" : "1" } } }, )j"
      R"j("p" : { "$dbPointer" : { "$ref" : "db.c", "$id" : { "$oid" : "5f1d7f3e9d1b2c3a4b5c6d7e" } } } })j";
  EXPECT_EQ(Convert(canonical), canonical);
}

TEST(JsonToBson, RelaxedAndLegacyFormsAsOlderToolsWrote) {
  EXPECT_EQ(
      Convert(
          R"j({"a": {"$date": "1970-01-02T00:00:00.000Z"}, "b": {"$date": 86400000}, )j"
          R"j("c": {"$numberLong": 5}, "d": {"$type": "00", "$binary": "aGk="}, )j"
          R"j("e": {"$options": "i", "$regex": "x"}, "f": {"$uuid": "01234567-89ab-cdef-0123-456789abcdef"}})j"),
      R"j({ "a" : { "$date" : { "$numberLong" : "86400000" } }, "b" : { "$date" : { "$numberLong" : "86400000" } }, )j"
      R"j("c" : { "$numberLong" : "5" }, "d" : { "$binary" : { "base64" : "aGk=", "subType" : "00" } }, )j"
      R"j("e" : { "$regularExpression" : { "pattern" : "x", "options" : "i" } }, )j"
      R"j("f" : { "$binary" : { "base64" : "ASNFZ4mrze8BI0VniavN7w==", "subType" : "04" } } })j");
}

TEST(JsonToBson, DollarKeysThatAreNotWrappersStayFields) {
  EXPECT_EQ(Convert(R"j({"a": {"x": 1, "$oid": 2}})j"),
            R"j({ "a" : { "x" : { "$numberInt" : "1" }, "$oid" : { "$numberInt" : "2" } } })j");
}

TEST(JsonToBson, MalformedWrappersNameTheProblem) {
  EXPECT_EQ(Convert(R"j({"a": {"$oid": "xyz"}})j"),
            "error: invalid Extended JSON $oid: not 24 hexadecimal digits");
  EXPECT_EQ(Convert(R"j({"a": {"$date": "tomorrow"}})j"),
            "error: invalid Extended JSON $date: not an ISO-8601 date: \"tomorrow\"");
  EXPECT_EQ(Convert(R"j({"a": {"$numberInt": "2147483648"}})j"),
            "error: invalid Extended JSON $numberInt: not a 32-bit integer");
  EXPECT_EQ(Convert(R"j({"a": {"$oid": "5f1d7f3e9d1b2c3a4b5c6d7e", "x": 1}})j"),
            "error: invalid Extended JSON x: not an Extended JSON key beside the others");
  EXPECT_EQ(Convert(R"j({"a": {"$binary": {"base64": "AQ=="}}})j"),
            "error: invalid Extended JSON $binary: needs base64 and subType");
  EXPECT_EQ(
      Convert(R"j({"a": {"$oid": "5f1d7f3e9d1b2c3a4b5c6d7e", "$date": 1}})j"),
      "error: invalid Extended JSON: a document mixes wrapper keys that do not belong together");
}

TEST(JsonToBson, InvalidJsonAndNonDocumentsAreErrors) {
  EXPECT_EQ(Convert("[1, 2]"), "error: expected a document (a JSON object)");
  EXPECT_EQ(Convert(R"j({"a": tru})j").rfind("error: invalid JSON", 0), 0u);
  EXPECT_EQ(Convert("{\"a\": \"\xff\"}").rfind("error: invalid JSON", 0), 0u);
  EXPECT_EQ(Convert(R"j({"a\u0000b": 1})j"),
            "error: a field name contains a NUL character, which BSON cannot store");
}

TEST(JsonToBson, TheShellSyntaxReadsAsMongoimportReadsIt) {
  EXPECT_EQ(
      Convert(R"j({_id: ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e"), 'n': NumberLong(5), )j"
              R"j(at: ISODate("1970-01-02T00:00:00Z"), r: /a.c/i, x: NaN,})j"),
      R"j({ "_id" : { "$oid" : "5f1d7f3e9d1b2c3a4b5c6d7e" }, "n" : { "$numberLong" : "5" }, )j"
      R"j("at" : { "$date" : { "$numberLong" : "86400000" } }, )j"
      R"j("r" : { "$regularExpression" : { "pattern" : "a.c", "options" : "i" } }, )j"
      R"j("x" : { "$numberDouble" : "NaN" } })j");
  // Neither strict JSON nor the shell's: both parsers' errors.
  const std::string neither = Convert(R"j({a: Foo(1)})j");
  EXPECT_EQ(neither.rfind("error: invalid JSON", 0), 0u) << neither;
  EXPECT_NE(neither.find("(nor the shell's syntax: line 1, column 5: unknown constructor 'Foo')"),
            std::string::npos)
      << neither;
  // The shell's syntax with a bad value: the value's error.
  EXPECT_EQ(Convert(R"j({a: ObjectId("zz")})j").rfind("error: invalid Extended JSON $oid", 0), 0u)
      << Convert(R"j({a: ObjectId("zz")})j");
}

TEST(JsonToBson, AConverterIsReusable) {
  JsonToBson converter;
  for (int round = 0; round < 3; ++round) {
    const std::string json = "{\"n\": " + std::to_string(round) + "}";
    bson_t doc = BSON_INITIALIZER;
    ASSERT_TRUE(converter.Convert(json.data(), json.size(), json.size(), &doc).ok());
    EXPECT_EQ(testing::Canonical(&doc),
              "{ \"n\" : { \"$numberInt\" : \"" + std::to_string(round) + "\" } }");
    bson_destroy(&doc);
  }
}

}  // namespace
}  // namespace quarry::tools::importing
