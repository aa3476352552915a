// FindDottedPath over bson_iter_t.
#include "tools/export/field_path.h"

namespace quarry::tools::exporting {
namespace {

// Array keys are "0", "1", ...: mongoexport reads an index as a number, so "01" means 1 too.
bool FindArrayElement(bson_iter_t* array, std::string_view part) {
  if (part.empty() || part.size() > 9) return false;
  std::uint32_t index = 0;
  for (char c : part) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<std::uint32_t>(c - '0');
  }
  for (std::uint32_t position = 0; bson_iter_next(array); ++position) {
    if (position == index) return true;
  }
  return false;
}

}  // namespace

bool FindDottedPath(const bson_t& document, std::string_view dotted_path, bson_iter_t* value) {
  bson_iter_t level;
  if (!bson_iter_init(&level, &document)) return false;
  bool in_array = false;
  std::string_view rest = dotted_path;
  while (true) {
    std::size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    bool found = in_array
                     ? FindArrayElement(&level, part)
                     : bson_iter_find_w_len(&level, part.data(), static_cast<int>(part.size()));
    if (!found) return false;
    if (dot == std::string_view::npos) {
      *value = level;
      return true;
    }
    rest.remove_prefix(dot + 1);
    in_array = BSON_ITER_HOLDS_ARRAY(&level);
    if (!in_array && !BSON_ITER_HOLDS_DOCUMENT(&level)) return false;
    bson_iter_t child;
    if (!bson_iter_recurse(&level, &child)) return false;
    level = child;
  }
}

}  // namespace quarry::tools::exporting
