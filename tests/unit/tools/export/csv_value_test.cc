#include "tools/export/csv_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace quarry::tools::exporting {
namespace {

// The cell text for the only field of a document built by `append`.
template <typename Append>
std::string Cell(Append append) {
  bson_t doc = BSON_INITIALIZER;
  append(&doc);
  bson_iter_t iter;
  std::string out;
  if (bson_iter_init(&iter, &doc) && bson_iter_next(&iter)) AppendCsvValue(iter, &out);
  bson_destroy(&doc);
  return out;
}

TEST(CsvValueTest, StringIsItself) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_UTF8(d, "v", "a \"b\", c"); }), "a \"b\", c");
}

TEST(CsvValueTest, IntegersArePlainNumbers) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_INT32(d, "v", -42); }), "-42");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_INT64(d, "v", 9007199254740993LL); }),
            "9007199254740993");
}

TEST(CsvValueTest, DoublesUseShortestRoundTripForm) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DOUBLE(d, "v", 1.5); }), "1.5");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DOUBLE(d, "v", 2.0); }), "2");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DOUBLE(d, "v", 0.1); }), "0.1");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DOUBLE(d, "v", NAN); }), "NaN");
  EXPECT_EQ(
      Cell([](bson_t* d) { BSON_APPEND_DOUBLE(d, "v", -std::numeric_limits<double>::infinity()); }),
      "-Inf");
}

TEST(CsvValueTest, Decimal128IsItsString) {
  EXPECT_EQ(Cell([](bson_t* d) {
              bson_decimal128_t dec;
              bson_decimal128_from_string("12.340", &dec);
              BSON_APPEND_DECIMAL128(d, "v", &dec);
            }),
            "12.340");
}

TEST(CsvValueTest, BooleansAreTrueFalse) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_BOOL(d, "v", true); }), "true");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_BOOL(d, "v", false); }), "false");
}

TEST(CsvValueTest, NullIsEmpty) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_NULL(d, "v"); }), "");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_UNDEFINED(d, "v"); }), "");
}

TEST(CsvValueTest, ObjectIdIsWrappedHex) {
  EXPECT_EQ(Cell([](bson_t* d) {
              bson_oid_t oid;
              bson_oid_init_from_string(&oid, "65a1b2c3d4e5f60718293a4b");
              BSON_APPEND_OID(d, "v", &oid);
            }),
            "ObjectId(65a1b2c3d4e5f60718293a4b)");
}

TEST(CsvValueTest, DateIsIsoUtcWithMilliseconds) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DATE_TIME(d, "v", 1704164645678LL); }),
            "2024-01-02T03:04:05.678Z");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_DATE_TIME(d, "v", 0); }), "1970-01-01T00:00:00.000Z");
}

TEST(CsvValueTest, DatesBeforeEpochAndFarFutureStillPrint) {
  std::string out;
  AppendIsoDate(-1, &out);
  EXPECT_EQ(out, "1969-12-31T23:59:59.999Z");
  out.clear();
  AppendIsoDate(-62135596800000LL, &out);  // the first instant of year 1
  EXPECT_EQ(out, "0001-01-01T00:00:00.000Z");
  out.clear();
  AppendIsoDate(253402300800000LL, &out);  // just past 9999
  EXPECT_EQ(out, "10000-01-01T00:00:00.000Z");
  out.clear();
  AppendIsoDate(951782400000LL, &out);  // a leap day
  EXPECT_EQ(out, "2000-02-29T00:00:00.000Z");
}

TEST(CsvValueTest, DocumentsAndArraysAreCompactRelaxedJson) {
  EXPECT_EQ(Cell([](bson_t* d) {
              bson_t child;
              BSON_APPEND_DOCUMENT_BEGIN(d, "v", &child);
              BSON_APPEND_UTF8(&child, "k", "a b");
              BSON_APPEND_INT64(&child, "n", 5);
              bson_append_document_end(d, &child);
            }),
            R"({"k":"a b","n":5})");
  EXPECT_EQ(Cell([](bson_t* d) {
              bson_t child;
              BSON_APPEND_ARRAY_BEGIN(d, "v", &child);
              BSON_APPEND_INT32(&child, "0", 1);
              BSON_APPEND_UTF8(&child, "1", "x");
              bson_append_array_end(d, &child);
            }),
            R"([1,"x"])");
}

TEST(CsvValueTest, OtherTypesAreRelaxedJson) {
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_TIMESTAMP(d, "v", 5, 7); }),
            R"({"$timestamp":{"t":5,"i":7}})");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_REGEX(d, "v", "^a", "i"); }),
            R"({"$regularExpression":{"pattern":"^a","options":"i"}})");
  EXPECT_EQ(Cell([](bson_t* d) { BSON_APPEND_MINKEY(d, "v"); }), R"({"$minKey":1})");
}

}  // namespace
}  // namespace quarry::tools::exporting
