// The top-level fields of one document, walked once, for code that looks up many of them: a
// command's dispatch asks its body for a dozen generic arguments, most of them absent, and each
// DocumentView::Get would walk every element to say so. Most keys looked up are absent, so the
// table keeps one of 64 bits per key (from its length and its first and last bytes), and a key
// whose bit no field has is absent without a comparison.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::bson {

class FieldTable {
 public:
  FieldTable() = default;
  explicit FieldTable(DocumentView document) { Reset(document); }
  // The table points into itself: it stays where it was built.
  FieldTable(const FieldTable&) = delete;
  FieldTable& operator=(const FieldTable&) = delete;

  // Walks `document`, which must outlive the table's use.
  void Reset(DocumentView document);

  // The first field with this key, or null.
  const Element* Find(std::string_view key) const;
  // The first field's value with this key, or absent, as DocumentView::Get.
  ValueView Get(std::string_view key) const;
  bool Has(std::string_view key) const { return Get(key).exists(); }
  bool HasAnyOf(std::initializer_list<std::string_view> keys) const;
  std::span<const Element> elements() const { return elements_; }

 private:
  // Commands rarely have more fields than this: their tables need no allocation.
  static constexpr std::size_t kInlineFields = 16;
  std::array<Element, kInlineFields> inline_;
  std::vector<Element> overflow_;
  std::span<const Element> elements_;
  std::uint64_t key_bits_ = 0;  // the bits of every field's key
};

}  // namespace quarry::bson
