// How strings compare when a collation is in force. bson/ only declares it: the ICU-backed
// implementation lives in collation/, above, and is passed down to the comparison functions.
#pragma once

#include <string>
#include <string_view>

namespace quarry::bson {

// A collation's order of UTF-8 strings. Implementations are immutable and safe to use from
// several threads at once. A null StringComparator* everywhere means the simple collation:
// strings compare by their bytes.
class StringComparator {
 public:
  virtual ~StringComparator() = default;

  // <0, 0, >0 as `a` sorts before, with or after `b`.
  virtual int Compare(std::string_view a, std::string_view b) const = 0;
  // Appends a key whose bytes, compared with memcmp, order as Compare orders the strings, and
  // which are equal exactly when Compare returns 0: what grouping, hashing and index keys use.
  virtual void AppendComparisonKey(std::string_view s, std::string* out) const = 0;
  // True when `other` orders every pair of strings as this one does (the same collation).
  virtual bool Equals(const StringComparator& other) const = 0;
};

// True when `a` and `b` are the same collation (both null: both simple).
inline bool SameCollation(const StringComparator* a, const StringComparator* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a == b || a->Equals(*b);
}

}  // namespace quarry::bson
