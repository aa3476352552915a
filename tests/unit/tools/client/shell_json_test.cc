// The shell's syntax rewritten as strict Extended JSON: each constructor, the JavaScript
// literals JSON lacks, and the errors that name where the text went wrong.
#include "tools/client/shell_json.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::client {
namespace {

// The rewritten text, or "error: <reason>".
std::string Rewrite(const std::string& text) {
  StatusWith<std::string> out = ShellJsonToExtendedJson(text);
  return out.ok() ? out.value() : "error: " + std::string(out.status().reason());
}

TEST(ShellJson, StrictJsonKeepsItsMeaning) {
  EXPECT_EQ(
      Rewrite(R"j({ "a" : [1, -2.5e3, "x\"y\u00e9", true, null, {}], "b": {"$oid": "ab"} })j"),
      R"j({"a":[1,-2.5e3,"x\"y\u00e9",true,null,{}],"b":{"$oid":"ab"}})j");
}

TEST(ShellJson, UnquotedKeysSingleQuotesCommentsAndTrailingCommas) {
  EXPECT_EQ(Rewrite("{a: 'it\\'s \"so\"', $b_1: 2, // a comment\n c: [1, 2,], /* and */ 'd': 3,}"),
            R"j({"a":"it's \"so\"","$b_1":2,"c":[1,2],"d":3})j");
}

TEST(ShellJson, JavaScriptEscapesBecomeJsonOnes) {
  EXPECT_EQ(Rewrite(R"j({s: 'a\x41\v\0\q'})j"), R"j({"s":"a\u0041\u000b\u0000q"})j");
}

TEST(ShellJson, NumbersJsonLacks) {
  EXPECT_EQ(Rewrite("{a: +1, b: .5, c: 5., d: 0x1F, e: 007, f: NaN, g: Infinity, h: -Infinity}"),
            R"j({"a":1,"b":0.5,"c":5.0,"d":31,"e":7,"f":{"$numberDouble":"NaN"},)j"
            R"j("g":{"$numberDouble":"Infinity"},"h":{"$numberDouble":"-Infinity"}})j");
}

TEST(ShellJson, Constructors) {
  EXPECT_EQ(Rewrite(R"j({_id: ObjectId("5f1d7f3e9d1b2c3a4b5c6d7e")})j"),
            R"j({"_id":{"$oid":"5f1d7f3e9d1b2c3a4b5c6d7e"}})j");
  EXPECT_EQ(Rewrite(R"j([ISODate("2020-01-02T03:04:05Z"), new Date("2020-01-02"), )j"
                    R"j(Date("2020-01-02T03:04:05"), new Date(86400000.9)])j"),
            R"j([{"$date":"2020-01-02T03:04:05Z"},{"$date":"2020-01-02T00:00:00Z"},)j"
            R"j({"$date":"2020-01-02T03:04:05Z"},{"$date":{"$numberLong":"86400000"}}])j");
  EXPECT_EQ(Rewrite(R"j([NumberInt(5), NumberLong("-9007199254740993"), NumberDecimal("1.10")])j"),
            R"j([{"$numberInt":"5"},{"$numberLong":"-9007199254740993"},)j"
            R"j({"$numberDecimal":"1.10"}])j");
  EXPECT_EQ(Rewrite(R"j([Timestamp(1700000000, 3), BinData(128, "AQID"), )j"
                    R"j(UUID("0123456789ABCDEF0123456789abcdef")])j"),
            R"j([{"$timestamp":{"t":1700000000,"i":3}},)j"
            R"j({"$binary":{"base64":"AQID","subType":"80"}},)j"
            R"j({"$uuid":"01234567-89ab-cdef-0123-456789abcdef"}])j");
  EXPECT_EQ(
      Rewrite(R"j([MinKey, MaxKey(), undefined, DBRef("c", 5, "db")])j"),
      R"j([{"$minKey":1},{"$maxKey":1},{"$undefined":true},{"$ref":"c","$id":5,"$db":"db"}])j");
}

TEST(ShellJson, RegularExpressions) {
  EXPECT_EQ(Rewrite(R"j({a: /^x[/]y\/z"$/mi, b: RegExp("a.c", "xs")})j"),
            R"j({"a":{"$regularExpression":{"pattern":"^x[/]y\\/z\"$","options":"im"}},)j"
            R"j("b":{"$regularExpression":{"pattern":"a.c","options":"sx"}}})j");
}

TEST(ShellJson, ErrorsNameTheLineAndColumn) {
  EXPECT_EQ(Rewrite("{a: 1,\n b: Foo(1)}"), "error: line 2, column 5: unknown constructor 'Foo'");
  EXPECT_EQ(Rewrite("{a: tru}"), "error: line 1, column 5: unknown name 'tru'");
  EXPECT_EQ(Rewrite("{a: 'open}"), "error: line 1, column 11: a string that never ends");
  EXPECT_EQ(Rewrite(R"j({a: ObjectId(5)})j"),
            "error: line 1, column 5: ObjectId takes one string "
            "of 24 hexadecimal digits");
  EXPECT_EQ(Rewrite("{a: /x/g}"),
            "error: line 1, column 9: a regular expression option "
            "BSON does not have: 'g'");
  EXPECT_EQ(Rewrite(std::string(100000, '[')),
            "error: line 1, column 257: nested more than 256 deep");
  EXPECT_EQ(Rewrite("{a: 1} x"),
            "error: line 1, column 8: unexpected text after the "
            "value");
}

}  // namespace
}  // namespace quarry::tools::client
