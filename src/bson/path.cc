// Dotted-path lookup without array traversal.
#include "bson/path.h"

#include <charconv>

namespace quarry::bson {

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) {
      parts.push_back(path.substr(start));
      return parts;
    }
    parts.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
}

ValueView GetPath(DocumentView doc, std::string_view path) {
  ValueView current;
  DocumentView container = doc;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string_view part =
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    current = container.Get(part);
    if (!current.exists() || dot == std::string_view::npos) return current;
    if (current.type() != Type::kDocument && current.type() != Type::kArray) return {};
    container = current.Document();
    start = dot + 1;
  }
}

}  // namespace quarry::bson
