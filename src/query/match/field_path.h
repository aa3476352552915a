// Dotted field paths ("a.b.0.c") and MongoDB's query-style traversal of them: implicit
// traversal of arrays of documents, numeric components that index arrays, and leaf arrays
// that are seen both element by element and as a whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::query {

// A parsed dotted path. Copies are cheap enough for parse time; nothing here allocates while
// matching.
class FieldPath {
 public:
  FieldPath() = default;  // the empty path: the value itself

  // Fails with BadValue for "" and for empty components ("a..b", ".a", "a.").
  static StatusWith<FieldPath> Parse(std::string_view dotted);
  // Splits on dots without validation, as filters accept any key: "" is one empty component,
  // "a..b" has an empty middle component. (The empty path is FieldPath().)
  static FieldPath FromDotted(std::string_view dotted);

  const std::string& dotted() const { return dotted_; }
  std::size_t size() const { return parts_.size(); }
  bool empty() const { return parts_.empty(); }
  std::string_view operator[](std::size_t i) const {
    return std::string_view(dotted_).substr(parts_[i].first, parts_[i].second);
  }
  // The components [begin, size()) joined with dots.
  std::string_view Suffix(std::size_t begin) const;
  // The components [0, end) joined with dots.
  std::string_view Prefix(std::size_t end) const;

  // True if this path equals `other` or is an ancestor of it ("a" of "a.b"; not "a" of "ab").
  bool IsPrefixOf(const FieldPath& other) const;

  bool operator==(const FieldPath& other) const { return dotted_ == other.dotted_; }

 private:
  std::string dotted_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> parts_;  // offset, length in dotted_
};

// The array index a path component names, if any: digits only and no leading zero (MongoDB
// looks such a component up as the array key, so "01" never names an element).
std::optional<std::size_t> ArrayIndexOf(std::string_view component);

// One value reached by TraversePath.
struct PathValue {
  bson::ValueView value;  // absent (kEod) when the path ends at a missing field
  // Index of the element of the outermost array the traversal went through, if any (what the
  // positional `$` operator uses).
  std::optional<std::size_t> array_index;
};

// Walks `path` from `root` as MongoDB's query language does and calls `visit(const PathValue&)`
// for each value reached, stopping early when `visit` returns true. Returns true if a visit
// returned true.
//  - A missing field, or a scalar where a document was needed, yields one absent value (so
//    {a: null} matches documents without `a`). Scalars inside an array on the way are skipped.
//  - An array met before the last component is traversed: each document element continues
//    the path; if the next component is a numeric index, the element at that index continues
//    after it as well. Nested arrays there are not entered.
//  - An array at the end of the path yields each of its elements and then the array itself
//    when `expand_leaf_arrays` (comparisons, $type, $exists...), or only the array itself
//    otherwise ($size, $elemMatch).
// An empty path yields `root` itself (with the same leaf-array rule).
template <typename Visit>
bool TraversePath(bson::ValueView root, const FieldPath& path, bool expand_leaf_arrays,
                  Visit&& visit);

// Every value of `path` in `doc` as an index or a sort key sees them: leaf arrays contribute
// their elements (an empty array contributes itself), and a missing field contributes one
// absent value. Used by sort keys.
std::vector<bson::ValueView> CollectPathValues(bson::DocumentView doc, const FieldPath& path);

// ---------------------------------------------------------------------------------------------
// Implementation of the template (kept here because it is inlined into every predicate).

namespace internal {

template <typename Visit>
bool TraverseFrom(bson::ValueView current, const FieldPath& path, std::size_t index,
                  bool expand_leaf_arrays, std::optional<std::size_t> array_index, Visit& visit) {
  // Walk down through documents until the path ends, a field is missing, or an array appears.
  while (index < path.size()) {
    if (current.type() == bson::Type::kDocument) {
      current = current.Document().Get(path[index]);
      ++index;
      if (!current.exists()) return visit(PathValue{current, array_index});
      continue;
    }
    if (current.type() != bson::Type::kArray) {
      return visit(PathValue{bson::ValueView(), array_index});
    }
    // An array with more path to go.
    const std::string_view next = path[index];
    const std::optional<std::size_t> wanted = ArrayIndexOf(next);
    std::size_t position = 0;
    for (const bson::Element& element : current.Document()) {
      const std::optional<std::size_t> outer =
          array_index.has_value() ? array_index : std::optional<std::size_t>(position);
      if (element.value.type() == bson::Type::kDocument) {
        if (TraverseFrom(element.value, path, index, expand_leaf_arrays, outer, visit)) {
          return true;
        }
      }
      if (wanted.has_value() && *wanted == position) {
        if (index + 1 == path.size()) {
          if (visit(PathValue{element.value, outer})) return true;
        } else if (element.value.type() == bson::Type::kDocument ||
                   element.value.type() == bson::Type::kArray) {
          if (TraverseFrom(element.value, path, index + 1, expand_leaf_arrays, outer, visit)) {
            return true;
          }
        }
      }
      ++position;
    }
    return false;
  }
  // The path ends here.
  if (current.type() == bson::Type::kArray && expand_leaf_arrays) {
    std::size_t position = 0;
    for (const bson::Element& element : current.Document()) {
      const std::optional<std::size_t> outer =
          array_index.has_value() ? array_index : std::optional<std::size_t>(position);
      if (visit(PathValue{element.value, outer})) return true;
      ++position;
    }
  }
  return visit(PathValue{current, array_index});
}

}  // namespace internal

template <typename Visit>
bool TraversePath(bson::ValueView root, const FieldPath& path, bool expand_leaf_arrays,
                  Visit&& visit) {
  return internal::TraverseFrom(root, path, 0, expand_leaf_arrays, std::nullopt, visit);
}

}  // namespace quarry::query
