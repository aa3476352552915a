// DocumentFormatter: the text an export writes around and for each document, whatever the
// output type. The export appends it to a buffer and writes that buffer out.
#pragma once

#include <bson/bson.h>

#include <string>

namespace quarry::tools::exporting {

// Calls come in the order Begin, Add*, Finish, each appending to `*out`.
class DocumentFormatter {
 public:
  virtual ~DocumentFormatter() = default;
  // What comes before the first document (a CSV header line, a JSON array's "[").
  virtual void Begin(std::string* out) = 0;
  virtual void Add(const bson_t& document, std::string* out) = 0;
  // What comes after the last document.
  virtual void Finish(std::string* out) = 0;
};

}  // namespace quarry::tools::exporting
