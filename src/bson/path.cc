// Dotted-path walking and lookup without array traversal.
#include "bson/path.h"

namespace quarry::bson {

PathComponents::Iterator::Iterator(std::string_view path) : path_(path) { LoadFrom(0); }

PathComponents::Iterator& PathComponents::Iterator::operator++() {
  if (current_.is_last) {
    done_ = true;
  } else {
    LoadFrom(current_.offset + current_.name.size() + 1);
  }
  return *this;
}

void PathComponents::Iterator::LoadFrom(std::size_t offset) {
  const std::size_t dot = path_.find('.', offset);
  current_.offset = offset;
  current_.is_last = dot == std::string_view::npos;
  current_.name = path_.substr(offset, current_.is_last ? std::string_view::npos : dot - offset);
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  for (const PathComponent& part : PathComponents(path)) parts.push_back(part.name);
  return parts;
}

ValueView GetPath(DocumentView doc, std::string_view path) {
  ValueView current(Type::kDocument, doc.data(), doc.size());
  for (const PathComponent& part : PathComponents(path)) {
    if (current.type() != Type::kDocument && current.type() != Type::kArray) return {};
    current = current.Document().Get(part.name);
    if (!current.exists()) return current;
  }
  return current;
}

}  // namespace quarry::bson
