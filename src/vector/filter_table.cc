#include "vector/filter_table.h"

#include <algorithm>

#include "bson/compare.h"
#include "bson/types.h"

namespace quarry::vector {
namespace {

std::string KeyOf(bson::ValueView value) {
  std::string key(1, static_cast<char>(value.type()));
  key.append(value.data(), value.size());
  return key;
}

bson::ValueView ValueOf(const std::string& key) {
  return bson::ValueView(static_cast<bson::Type>(static_cast<std::uint8_t>(key[0])), key.data() + 1,
                         key.size() - 1);
}

// Narrowing is kept to paths of field names; one with an array index ("tags.0") is left to
// the filter alone.
bool NamesFieldsOnly(const query::FieldPath& path) {
  for (std::size_t part = 0; part < path.size(); ++part) {
    if (query::ArrayIndexOf(path[part]).has_value()) return false;
  }
  return true;
}

// Whether a comparison with `operand` matches only values that equal it or sort beside it in
// its own type: null (which matches missing fields), arrays (which match whole arrays), regular
// expressions (which match strings) and MinKey/MaxKey do not.
bool Narrowable(bson::ValueView operand) {
  switch (operand.type()) {
    case bson::Type::kEod:
    case bson::Type::kNull:
    case bson::Type::kUndefined:
    case bson::Type::kArray:
    case bson::Type::kRegex:
    case bson::Type::kMinKey:
    case bson::Type::kMaxKey:
      return false;
    default:
      return true;
  }
}

bool IsOperatorDocument(bson::ValueView value) {
  return value.type() == bson::Type::kDocument && value.Document().FirstKey().starts_with('$');
}

// Sorted and without repeats; nullopt when over `max_candidates`.
std::optional<std::vector<std::uint32_t>> Finished(std::vector<std::uint32_t> labels,
                                                   std::size_t max_candidates) {
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  if (labels.size() > max_candidates) return std::nullopt;
  return labels;
}

void KeepSmaller(std::optional<std::vector<std::uint32_t>>& best,
                 std::optional<std::vector<std::uint32_t>> other) {
  if (other.has_value() && (!best.has_value() || other->size() < best->size())) {
    best = std::move(other);
  }
}

}  // namespace

bool FilterTable::ValueLess::operator()(const std::string& a, const std::string& b) const {
  return bson::CompareValues(ValueOf(a), ValueOf(b)) < 0;
}

void FilterTable::Reset(const std::vector<std::string>& paths) {
  values_.Clear();
  paths_.clear();
  for (const std::string& dotted : paths) {
    query::FieldPath path = query::FieldPath::FromDotted(dotted);
    if (NamesFieldsOnly(path)) paths_.push_back({std::move(path), Postings()});
  }
}

void FilterTable::Append(std::string_view bytes) {
  values_.Append(bytes);
  Post(static_cast<std::uint32_t>(values_.size() - 1), /*add=*/true);
}

void FilterTable::Set(std::size_t label, std::string_view bytes) {
  // Most updates leave the filter fields as they were: their postings stay as they are.
  if (values_.Get(label) == bytes) return;
  const auto at = static_cast<std::uint32_t>(label);
  Post(at, /*add=*/false);
  values_.Set(label, bytes);
  Post(at, /*add=*/true);
}

void FilterTable::Post(std::uint32_t label, bool add) {
  const bson::DocumentView document = values_.Document(label);
  if (document.empty()) return;
  const bson::ValueView root(bson::Type::kDocument, document.data(), document.size());
  for (auto& [path, postings] : paths_) {
    // The values a comparison on the path looks at, as the matcher reads them. Missing values
    // and whole arrays are never looked up: null and array operands do not narrow.
    query::TraversePath(root, path, /*expand_leaf_arrays=*/true, [&](const query::PathValue& at) {
      const bson::ValueView value = at.value;
      if (!value.exists() || value.type() == bson::Type::kArray) return false;
      if (add) {
        std::vector<std::uint32_t>& labels = postings[KeyOf(value)];
        // New labels come last, so the common case appends.
        if (labels.empty() || labels.back() < label) {
          labels.push_back(label);
          return false;
        }
        auto it = std::lower_bound(labels.begin(), labels.end(), label);
        if (it == labels.end() || *it != label) labels.insert(it, label);
        return false;
      }
      auto entry = postings.find(KeyOf(value));
      if (entry == postings.end()) return false;
      std::vector<std::uint32_t>& labels = entry->second;
      auto it = std::lower_bound(labels.begin(), labels.end(), label);
      if (it != labels.end() && *it == label) labels.erase(it);
      if (labels.empty()) postings.erase(entry);
      return false;
    });
  }
}

const FilterTable::Postings* FilterTable::PostingsOf(std::string_view dotted) const {
  for (const auto& [path, postings] : paths_) {
    if (path.dotted() == dotted) return &postings;
  }
  return nullptr;
}

std::optional<std::vector<std::uint32_t>> FilterTable::Candidates(
    bson::DocumentView filter, std::size_t max_candidates) const {
  std::optional<std::vector<std::uint32_t>> best;
  for (const bson::Element& condition : filter) {
    if (condition.key == "$and" && condition.value.type() == bson::Type::kArray) {
      for (const bson::Element& clause : condition.value.Document()) {
        if (clause.value.type() != bson::Type::kDocument) continue;
        KeepSmaller(best, Candidates(clause.value.Document(), max_candidates));
      }
      continue;
    }
    if (condition.key == "$or" && condition.value.type() == bson::Type::kArray) {
      KeepSmaller(best, ForEveryBranch(condition.value.Document(), max_candidates));
      continue;
    }
    // $nor and the like name no values that every match must hold.
    if (condition.key.starts_with('$')) continue;
    const Postings* postings = PostingsOf(condition.key);
    if (postings == nullptr) continue;
    KeepSmaller(best, ForCondition(*postings, condition.value, max_candidates));
  }
  return best;
}

std::optional<std::vector<std::uint32_t>> FilterTable::ForEveryBranch(
    bson::DocumentView branches, std::size_t max_candidates) const {
  // A match satisfies some branch: the union narrows only if each branch does.
  std::vector<std::uint32_t> labels;
  for (const bson::Element& branch : branches) {
    if (branch.value.type() != bson::Type::kDocument) return std::nullopt;
    std::optional<std::vector<std::uint32_t>> some =
        Candidates(branch.value.Document(), max_candidates);
    if (!some.has_value()) return std::nullopt;
    labels.insert(labels.end(), some->begin(), some->end());
    if (labels.size() > 2 * max_candidates) return std::nullopt;  // repeats are not gone yet
  }
  return Finished(std::move(labels), max_candidates);
}

std::optional<std::vector<std::uint32_t>> FilterTable::ForCondition(
    const Postings& postings, bson::ValueView condition, std::size_t max_candidates) const {
  if (!IsOperatorDocument(condition)) {
    return ForOperator(postings, "$eq", condition, max_candidates);
  }
  // Each operator narrows on its own; their ranges are not intersected, since on an array
  // each may be met by a different element.
  std::optional<std::vector<std::uint32_t>> best;
  for (const bson::Element& op : condition.Document()) {
    KeepSmaller(best, ForOperator(postings, op.key, op.value, max_candidates));
  }
  return best;
}

std::optional<std::vector<std::uint32_t>> FilterTable::ForOperator(
    const Postings& postings, std::string_view op, bson::ValueView operand,
    std::size_t max_candidates) const {
  std::vector<std::uint32_t> labels;
  auto take = [&](const std::vector<std::uint32_t>& more) {
    labels.insert(labels.end(), more.begin(), more.end());
    return labels.size() <= max_candidates;
  };
  if (op == "$eq") {
    if (!Narrowable(operand)) return std::nullopt;
    auto entry = postings.find(KeyOf(operand));
    if (entry != postings.end() && !take(entry->second)) return std::nullopt;
    return Finished(std::move(labels), max_candidates);
  }
  if (op == "$in") {
    if (operand.type() != bson::Type::kArray) return std::nullopt;
    for (const bson::Element& element : operand.Document()) {
      if (!Narrowable(element.value)) return std::nullopt;
      auto entry = postings.find(KeyOf(element.value));
      if (entry != postings.end() && !take(entry->second)) return std::nullopt;
    }
    return Finished(std::move(labels), max_candidates);
  }
  const bool below = op == "$lt" || op == "$lte";
  const bool above = op == "$gt" || op == "$gte";
  if ((!below && !above) || !Narrowable(operand)) return std::nullopt;
  // Comparisons stay within the operand's type (numbers with numbers, strings with strings).
  const int rank = bson::CanonicalTypeRank(operand.type());
  auto same_rank = [rank](Postings::const_iterator it) {
    return bson::CanonicalTypeRank(ValueOf(it->first).type()) == rank;
  };
  const std::string key = KeyOf(operand);
  if (below) {
    auto end = op == "$lt" ? postings.lower_bound(key) : postings.upper_bound(key);
    for (auto it = end; it != postings.begin();) {
      --it;
      if (!same_rank(it)) break;
      if (!take(it->second)) return std::nullopt;
    }
  } else {
    for (auto it = op == "$gt" ? postings.upper_bound(key) : postings.lower_bound(key);
         it != postings.end() && same_rank(it); ++it) {
      if (!take(it->second)) return std::nullopt;
    }
  }
  return Finished(std::move(labels), max_candidates);
}

}  // namespace quarry::vector
