// Dotted paths ("a.b.0.c") in documents, without implicit array traversal: each component
// names a field of a document, or an index of an array. The query matcher adds MongoDB's
// array traversal on top of this.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::bson {

// One component of a dotted path, as PathComponents yields it.
struct PathComponent {
  std::string_view name;   // the text between two dots (or an end of the path)
  std::size_t offset = 0;  // where `name` starts in the path: path.substr(offset) is the rest
  bool is_last = false;    // no dot follows `name`
};

// The components of a dotted path, left to right, for a range-for:
//
//   for (const PathComponent& part : PathComponents("a.b.c")) ...  // "a", "b", then "c"
//
// Every '.' separates two components, so a path with n dots has n + 1 of them: "" is one empty
// component, "a." ends with an empty one, and "a..b" has an empty one between the dots. Callers
// that must reject empty names check `name.empty()`. Names are views into the path, whose
// characters must outlive them. An input range; cheap to copy.
class PathComponents {
 public:
  class Iterator {
   public:
    using value_type = PathComponent;
    using difference_type = std::ptrdiff_t;

    Iterator() = default;
    const PathComponent& operator*() const { return current_; }
    const PathComponent* operator->() const { return &current_; }
    Iterator& operator++();
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return done_; }

   private:
    friend class PathComponents;
    explicit Iterator(std::string_view path);
    // Makes `current_` the component that starts at `offset`.
    void LoadFrom(std::size_t offset);

    std::string_view path_;
    PathComponent current_;
    bool done_ = false;
  };

  explicit PathComponents(std::string_view path) : path_(path) {}
  Iterator begin() const { return Iterator(path_); }
  std::default_sentinel_t end() const { return {}; }

 private:
  std::string_view path_;
};

// The value at `path`, or an absent ValueView.
ValueView GetPath(DocumentView doc, std::string_view path);

// The names of PathComponents(path), in order: "a.b.c" gives {"a", "b", "c"}.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace quarry::bson
