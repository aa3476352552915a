// The columns of a CSV/TSV import: their field names (dotted names nest), their types when
// --columnsHaveTypes gives them ("age.int32()", "born.date(2006-01-02)"), and the conversion of
// one record to a BSON document, as mongoimport does it.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/import/date_layout.h"

namespace quarry::tools::importing {

enum class ColumnType {
  kAuto,  // int32, else int64, else double, else string: the type of an untyped column
  kString,
  kInt32,
  kInt64,
  kDouble,
  kDecimal,
  kBoolean,
  kDate,    // date(...) and date_go(...): a Go reference layout
  kDateMs,  // date_ms(...): a .NET-style layout (yyyy, MM, dd, HH, mm, ss, fff)
  kBinary,  // binary(base64) or binary(hex)
};

// What happens to a value its column's type cannot read (--parseGrace).
enum class ParseGrace { kAutoCast, kSkipField, kSkipRow, kStop };

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kAuto;
  std::string argument;                           // a date layout, a binary encoding
  std::shared_ptr<const DateLayout> date_layout;  // for kDate and kDateMs, parsed once
};

// Parses the column names, with their types when `have_types`. Errors (kBadValue) for an
// unknown type or layout, a repeated name, or two names where one is a prefix of the other
// ("a" and "a.b").
StatusWith<std::vector<ColumnSpec>> ParseColumns(const std::vector<std::string>& names,
                                                 bool have_types);

// What converting a record did: appended, or the record is to be skipped or is an error.
struct RowOutcome {
  enum Kind { kConverted, kSkipped, kFailed } kind = kConverted;
  std::string reason;        // for kSkipped and kFailed
  bool stop_import = false;  // --parseGrace stop: the import ends here
};

class ColumnConverter {
 public:
  ColumnConverter(std::vector<ColumnSpec> columns, bool ignore_blanks, ParseGrace grace);
  ~ColumnConverter();
  ColumnConverter(const ColumnConverter&) = delete;
  ColumnConverter& operator=(const ColumnConverter&) = delete;

  // Appends the document for `values` to `out` (empty). A record with more values than
  // columns fails; a shorter one leaves the missing fields out.
  RowOutcome Convert(const std::vector<std::string>& values, bson_t* out) const;

  std::size_t columns() const { return columns_.size(); }

 private:
  struct Node;
  // Appends the fields below `node`; returns how many.
  StatusWith<int> AppendNode(const Node& node, const std::vector<std::string>& values, bson_t* out,
                             bool* skip_row) const;

  std::vector<ColumnSpec> columns_;
  bool ignore_blanks_;
  ParseGrace grace_;
  std::unique_ptr<Node> root_;
};

// Converts `text` as `type` and appends it under `key`. False when the text is not of that type.
bool AppendTypedValue(const ColumnSpec& column, const std::string& text, const char* key,
                      int key_length, bson_t* out);

}  // namespace quarry::tools::importing
