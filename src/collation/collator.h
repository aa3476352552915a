// Collations: a client's collation document ({locale: "fr", strength: 2}) parsed and validated
// as mongod does, and the ICU collator that orders strings under it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/string_comparator.h"
#include "bson/value.h"

namespace quarry::collation {

class Collator final : public bson::StringComparator {
 public:
  // Parses a collation document. Returns null for the simple collation ({locale: "simple"}),
  // which compares strings by their bytes. Fails as mongod does: NoSuchKey (4) without
  // `locale`, TypeMismatch (14) for an option of the wrong type, 40415 for an unknown field,
  // 51024 for a strength outside 1-5, BadValue (2) for an unknown enumeration value, a locale
  // ICU does not know ("Field 'locale' is invalid in: ...") or a combination mongod refuses
  // (backwards with strength 1, caseFirst without caseLevel below strength 3),
  // FailedToParse (9) for options next to "simple", IncompatibleCollationVersion (161) for a
  // `version` other than this build's ICU version.
  static StatusWith<std::shared_ptr<const Collator>> Parse(bson::DocumentView spec);
  // As Parse for a command's `collation` argument: absent or null is the simple collation; a
  // non-document fails with TypeMismatch "BSON field '<where>collation' is the wrong type ...".
  static StatusWith<std::shared_ptr<const Collator>> ParseArgument(bson::ValueView spec,
                                                                   std::string_view where);

  ~Collator() override;
  Collator(const Collator&) = delete;
  Collator& operator=(const Collator&) = delete;

  // The fully specified form mongod reports (listIndexes, listCollections, explain): locale,
  // caseLevel, caseFirst, strength, numericOrdering, alternate, maxVariable, normalization,
  // backwards, version.
  bson::DocumentView spec() const { return spec_.view(); }

  int Compare(std::string_view a, std::string_view b) const override;
  void AppendComparisonKey(std::string_view s, std::string* out) const override;
  bool Equals(const bson::StringComparator& other) const override;

 private:
  struct Icu;  // the ICU collator, frozen after construction
  Collator(bson::Document spec, std::unique_ptr<Icu> icu);

  bson::Document spec_;
  std::unique_ptr<Icu> icu_;
};

using CollatorPtr = std::shared_ptr<const Collator>;

}  // namespace quarry::collation
