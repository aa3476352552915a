// A case-insensitive ASCII comparator that stands in for ICU's collators in query/ tests.
#pragma once

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <string_view>

#include "bson/string_comparator.h"

namespace quarry::query::testing {

class CaseInsensitive final : public bson::StringComparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    std::string x = Lower(a);
    std::string y = Lower(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  void AppendComparisonKey(std::string_view s, std::string* out) const override {
    out->append(Lower(s));
  }
  bool Equals(const bson::StringComparator& other) const override {
    return dynamic_cast<const CaseInsensitive*>(&other) != nullptr;
  }

 private:
  static std::string Lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  }
};

inline std::shared_ptr<const bson::StringComparator> Ci() {
  return std::make_shared<CaseInsensitive>();
}

}  // namespace quarry::query::testing
