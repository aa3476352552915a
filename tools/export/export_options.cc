// PlanExport and the field-list helpers.
#include "tools/export/export_options.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "tools/client/shell_json.h"

namespace quarry::tools::exporting {
namespace {

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r\n";
  std::size_t first = text.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlank) - first + 1);
}

StatusWith<std::vector<std::string>> ReadFieldFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status(ErrorCode::kBadValue, "cannot read --fieldFile " + path);
  std::ostringstream text;
  text << file.rdbuf();
  return ParseFieldFile(text.str());
}

bool IsPositional(std::string_view field) { return field.size() > 2 && field.ends_with(".$"); }

}  // namespace

std::vector<std::string> SplitFieldList(std::string_view list) {
  std::vector<std::string> fields;
  while (true) {
    std::size_t comma = list.find(',');
    std::string_view field = Trim(list.substr(0, comma));
    if (!field.empty()) fields.emplace_back(field);
    if (comma == std::string_view::npos) return fields;
    list.remove_prefix(comma + 1);
  }
}

std::vector<std::string> ParseFieldFile(std::string_view text) {
  std::vector<std::string> fields;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view field = Trim(text.substr(0, newline));
    if (!field.empty()) fields.emplace_back(field);
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return fields;
}

client::BsonPtr FieldProjection(const std::vector<std::string>& fields) {
  // A set, because {a: 1, a: 1} is a duplicate the server rejects, and "a.b,a.c" both mean a.
  std::set<std::string> projected = {"_id"};
  for (const std::string& field : fields) {
    projected.insert(IsPositional(field) ? field : field.substr(0, field.find('.')));
  }
  bson_t* projection = bson_new();
  for (const std::string& name : projected) {
    bson_append_int32(projection, name.c_str(), static_cast<int>(name.size()), 1);
  }
  return client::BsonPtr(projection);
}

// Extended JSON, or the mongo shell's syntax ({_id: ObjectId("...")}) as mongoexport reads it.
StatusWith<client::BsonPtr> ParseJsonFlag(std::string_view flag, const std::string& text) {
  bson_error_t error;
  bson_t* parsed = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(text.data()),
                                      static_cast<ssize_t>(text.size()), &error);
  if (parsed == nullptr) {
    StatusWith<std::string> rewritten = client::ShellJsonToExtendedJson(text);
    bson_error_t ignored;
    if (rewritten.ok()) {
      parsed = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(rewritten.value().data()),
                                  static_cast<ssize_t>(rewritten.value().size()), &ignored);
    }
  }
  if (parsed == nullptr) {
    return Status(ErrorCode::kFailedToParse, std::string(flag) + " '" + text +
                                                 "' is not valid Extended JSON: " + error.message);
  }
  return client::BsonPtr(parsed);
}

StatusWith<ExportPlan> PlanExport(const ExportOptions& options) {
  ExportPlan plan;
  if (options.collection.empty()) return Status(ErrorCode::kBadValue, "--collection is required");
  plan.uri = options.uri;
  plan.database = options.database;
  plan.collection = options.collection;
  plan.out = options.out;

  std::string type = options.type;
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (type == "json") {
    plan.type = OutputType::kJson;
  } else if (type == "csv") {
    plan.type = OutputType::kCsv;
  } else {
    return Status(ErrorCode::kBadValue,
                  "invalid --type '" + options.type + "' (choose json or csv)");
  }
  if (options.json_format == "relaxed") {
    plan.json_format = JsonFormat::kRelaxed;
  } else if (options.json_format == "canonical") {
    plan.json_format = JsonFormat::kCanonical;
  } else {
    return Status(ErrorCode::kBadValue, "invalid --jsonFormat '" + options.json_format +
                                            "' (choose relaxed or canonical)");
  }
  if (options.skip < 0) return Status(ErrorCode::kBadValue, "--skip must not be negative");
  if (options.limit < 0) return Status(ErrorCode::kBadValue, "--limit must not be negative");
  plan.skip = options.skip;
  plan.limit = options.limit;
  plan.json_array = options.json_array;
  plan.pretty = options.pretty;
  plan.header_line = !options.no_header_line;

  if (!options.fields.empty() && !options.field_file.empty()) {
    return Status(ErrorCode::kBadValue, "use either --fields or --fieldFile, not both");
  }
  if (!options.field_file.empty()) {
    QUARRY_ASSIGN_OR_RETURN(plan.fields, ReadFieldFile(options.field_file));
    if (plan.fields.empty()) {
      return Status(ErrorCode::kBadValue, "--fieldFile " + options.field_file + " lists no fields");
    }
  } else {
    plan.fields = SplitFieldList(options.fields);
  }
  if (plan.type == OutputType::kCsv && plan.fields.empty()) {
    return Status(ErrorCode::kBadValue, "CSV mode requires a field list");
  }
  if (!plan.fields.empty()) plan.projection = FieldProjection(plan.fields);
  if (plan.type == OutputType::kCsv) {
    // A positional "a.$" projects a's matching element; its column reads a.
    for (std::string& field : plan.fields) {
      if (IsPositional(field)) field.resize(field.size() - 2);
    }
  }

  if (options.query.empty()) {
    plan.filter = client::BsonPtr(bson_new());
  } else {
    QUARRY_ASSIGN_OR_RETURN(plan.filter, ParseJsonFlag("--query", options.query));
  }
  if (!options.sort.empty()) {
    QUARRY_ASSIGN_OR_RETURN(plan.sort, ParseJsonFlag("--sort", options.sort));
  }
  return plan;
}

}  // namespace quarry::tools::exporting
