// `quarry export`: streams the documents an ExportPlan selects from a server to its output as
// JSON or CSV, one document at a time, so memory stays flat whatever the collection's size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "tools/client/progress.h"
#include "tools/export/document_formatter.h"
#include "tools/export/export_options.h"

namespace quarry::tools::exporting {

// The formatter for the plan's output type and JSON options.
std::unique_ptr<DocumentFormatter> MakeFormatter(const ExportPlan& plan);

// Exports and returns the number of documents written. The output is opened only once the
// server has answered the query, so a failed query leaves an existing file untouched. Reports
// the export to `progress` as one task counted in documents. Fails with kHostUnreachable when
// no server answers, the server's error for a failed query, or kOperationFailed for an output
// that cannot be opened or written (a full disk, a closed pipe).
StatusWith<std::int64_t> RunExport(const ExportPlan& plan, client::ProgressSink& progress);

// mongoexport's closing line: "exported 1 record", "exported 3 records".
std::string ExportedLine(std::int64_t count);

}  // namespace quarry::tools::exporting
